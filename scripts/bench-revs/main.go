// Command bench-revs compares the benchmark driver's rows at two revisions of zkrecipes in one
// invocation. The driver (./bench) runs the zkrecipes peer in its own process, so two versions of
// the library cannot share a binary: bench-revs checks each revision out into a temporary git
// worktree, builds the driver there, and runs the two binaries interleaved (base, head, base,
// head, ... for -rounds rounds, every run the same plan), each with go-zookeeper's zk.Lock as the
// in-run yardstick. On a shared, loaded machine absolute figures drift from run to run; the
// ratio of zkrecipes to zk.Lock measured in the same run, and the comparison of neighbouring
// runs, drift much less, and those are what the table reports.
//
//	go run ./scripts/bench-revs -base 0091b70^ -head HEAD -rounds 5
//	make bench-revs BASE=0091b70^ [HEAD=main] [ROUNDS=5] [REPS=1] [ONLY=b8,b64,d]
//
// -head . (or -base .) means the current work tree, uncommitted changes included. The first
// -count-rounds rounds also run the driver's request-counting pass (through a decoding proxy,
// after the timed passes, so it costs no timing), which gives the requests per acquisition of
// both revisions. The markdown table goes to stdout and to -out; every run's report, log and
// JSON record stay in -keep (a temporary directory unless given), and the load average at the
// start of each run is in the table. With ZK_SERVERS set, every run uses that ensemble;
// otherwise each run starts its own ZooKeeper, as the driver does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// options are bench-revs' flags.
type options struct {
	base, head  string // revisions ("." = the work tree)
	rounds      int
	reps        int // the driver's -reps in each run
	countRounds int // rounds whose runs include the counting pass
	only        string
	out         string
	keep        string // directory of every run's report, log and record
	cpuprofile  bool
	alternate   bool // even rounds run head first
	runTimeout  time.Duration
}

// errUsage is returned for bad flags; the message says which.
var errUsage = errors.New("bench-revs: usage")

func main() {
	var o options
	flag.StringVar(&o.base, "base", "", "the revision to compare against (required), e.g. 0091b70^; . = the work tree")
	flag.StringVar(&o.head, "head", "HEAD", "the revision under test; . = the work tree with its uncommitted changes")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds; each runs base then head")
	flag.IntVar(&o.reps, "reps", 1, "the driver's -reps in each run (a round's figure is the run's median)")
	flag.IntVar(&o.countRounds, "count-rounds", 1, "the first this many rounds also run the request-counting pass")
	flag.StringVar(&o.only, "only", "b8,b64,d", "the driver's -only: the scenario ids to compare")
	flag.StringVar(&o.out, "out", "", "write the markdown table to this file too")
	flag.StringVar(&o.keep, "keep", "", "keep every run's report, log and JSON record here (default: a new temporary directory)")
	flag.BoolVar(&o.alternate, "alternate", false, "run head first in even rounds (base, head, head, base, ...)")
	flag.BoolVar(&o.cpuprofile, "cpuprofile", false, "write a CPU profile of each run's timed passes into -keep")
	flag.DurationVar(&o.runTimeout, "run-timeout", 15*time.Minute, "bound on one run of the driver")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench-revs:", err)
		stop()
		os.Exit(1)
	}
}

// check validates the options.
func (o options) check() error {
	switch {
	case o.base == "":
		return fmt.Errorf("%w: -base is required (a revision, or . for the work tree)", errUsage)
	case o.head == "":
		return fmt.Errorf("%w: -head is empty", errUsage)
	case o.rounds < 1:
		return fmt.Errorf("%w: -rounds %d: need at least 1", errUsage, o.rounds)
	case o.reps < 1:
		return fmt.Errorf("%w: -reps %d: need at least 1", errUsage, o.reps)
	case o.countRounds < 0 || o.countRounds > o.rounds:
		return fmt.Errorf("%w: -count-rounds %d: need 0 to -rounds (%d)", errUsage, o.countRounds, o.rounds)
	case strings.TrimSpace(o.only) == "":
		return fmt.Errorf("%w: -only is empty", errUsage)
	case o.runTimeout <= 0:
		return fmt.Errorf("%w: -run-timeout %v: must be positive", errUsage, o.runTimeout)
	}
	return nil
}

// run prepares both revisions, runs the schedule and writes the table.
func run(ctx context.Context, o options, stdout, log io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.keep == "" {
		dir, err := os.MkdirTemp("", "bench-revs-")
		if err != nil {
			return err
		}
		o.keep = dir
	} else if err := os.MkdirAll(o.keep, 0o755); err != nil {
		return err
	}
	started := time.Now()
	sides, cleanup, err := prepare(ctx, o, log)
	defer cleanup()
	if err != nil {
		return err
	}
	var runs []runRecord
	for _, s := range schedule(o.rounds, o.countRounds, o.alternate) {
		rec, err := runOnce(ctx, o, sides[s.side], s, log)
		if err != nil {
			return err
		}
		runs = append(runs, rec)
	}
	c := comparison{
		command: "go run ./scripts/bench-revs " + strings.Join(os.Args[1:], " "), started: started,
		elapsed: time.Since(started), base: sides[sideBase].rev, head: sides[sideHead].rev,
		rounds: o.rounds, reps: o.reps, alternate: o.alternate, ids: splitIDs(o.only), runs: runs,
	}
	var b strings.Builder
	c.write(&b)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	fmt.Fprintf(log, "bench-revs: every run's report, log and record: %s\n", o.keep)
	if o.out != "" {
		return os.WriteFile(o.out, []byte(b.String()), 0o644)
	}
	return nil
}

// splitIDs splits a comma-separated list, dropping blanks.
func splitIDs(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}
