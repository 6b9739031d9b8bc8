// Command bench is the benchmark driver of issue 5: zkrecipes' locks against the raw ZooKeeper
// floor, go-zookeeper's zk.Lock, Curator's InterProcessMutex and kazoo's Lock, in one run against
// one ZooKeeper (started here with forceSync=yes through zktest, or ZK_SERVERS). The sticky-lease
// scenarios of issue 28 (s1-s5) run zkrecipes sticky and non-sticky beside zk.Lock and Curator.
//
//	go run ./bench -out docs/benchmarks.md -history bench/results   # make bench: 3 repetitions, ~30 min on 2 cores (s: ~6.5 of them, loaded)
//	go run ./bench -quick                    # make bench-quick: 1 short repetition, 3-4 min (s: ~2 of them, loaded)
//	go run ./bench -pair go-zookeeper-zklock,zkrecipes -only b8,b64   # two Go peers at once, ratios per round (pair.go)
//
// It prints the markdown report to stdout and, with -out, writes it to that file. Curator and
// kazoo run when their Debian packages are installed; when they are missing and the driver runs
// as root it installs them (apt-get install -y ...) unless -no-install is given.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
)

// options are the driver's flags.
type options struct {
	out       string
	quick     bool
	reps      int
	servers   string
	peers     string // comma-separated peer names or slugs; empty = all
	noInstall bool
	noCount   bool
	only      string // comma-separated scenario ids; empty = all
	cpuprof   string
	history   string // directory of the run history ("" = none)
	warmup    time.Duration
	command   string
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "", "write the markdown report to this file too")
	flag.BoolVar(&o.quick, "quick", false, "short windows, 1 repetition, queues of 1, 64 and 500 for e (a minute or two)")
	flag.IntVar(&o.reps, "reps", 0, "repetitions of the whole set (default 3, 1 with -quick)")
	flag.StringVar(&o.peers, "peers", "", "comma-separated peers to run (raw-floor, zkrecipes, zkrecipes-sticky, go-zookeeper-zklock, curator, kazoo; diagnostic, only when named: zkrecipes-no-cancel, framework-floor, framework-floor-no-cancel, lean-engine, lean-engine-no-cancel)")
	flag.BoolVar(&o.noInstall, "no-install", false, "never apt-get install missing peers")
	flag.DurationVar(&o.warmup, "server-warmup", 5*time.Second, "plain lock traffic (8 sessions) sent to the server before the first timed run, so that the first peer does not measure a server whose JIT is cold; 0 skips it")
	flag.BoolVar(&o.noCount, "no-count", false, "skip the request-counting pass")
	flag.StringVar(&o.only, "only", "", "comma-separated scenario ids to run (a,b8,b64,c,d,e1,e64,e1000,e10000,e-limit,f-rw,f-sem,f-multi, m1-tx,m1-seq,...,m8-seq,mc-tx,mc-seq,mc-naive, s1,s2,s3,s4,s5,s5-w, raw-...); for diagnosis")
	flag.StringVar(&o.history, "history", "", "keep one JSON record per run in this directory and warn of ratios >10% worse than the last run")
	flag.StringVar(&heapProfile, "memprofile", "", "write a heap profile of each in-process depth scenario, once its queue is full, to this prefix")
	flag.StringVar(&o.cpuprof, "cpuprofile", "", "write a CPU profile of the timed passes (Go peers run in this process) to this file")
	flag.Parse()
	if heapProfile != "" {
		runtime.MemProfileRate = 512 // allocation sites of small objects too (diagnostic runs only)
	}
	o.servers = os.Getenv("ZK_SERVERS")
	o.command = commandLine(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	do := run
	switch {
	case *pairChild != "":
		do = func(ctx context.Context, o options, stdout, _ io.Writer) error {
			return runPairChild(ctx, o.servers, stdout)
		}
	case *pairPeers != "":
		do = runPairs
	}
	if err := do(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		stop()
		os.Exit(1)
	}
}

// commandLine reconstructs the command that produced the report.
func commandLine(args []string) string {
	s := "go run ./bench"
	if len(args) > 0 {
		s += " " + strings.Join(args, " ")
	}
	if v := os.Getenv("ZK_SERVERS"); v != "" {
		s = "ZK_SERVERS=" + v + " " + s
	}
	return s
}

// run executes a whole benchmark with the default or quick plan and writes the report.
func run(ctx context.Context, o options, stdout, log io.Writer) error {
	p := defaultPlan()
	if o.quick {
		p = quickPlan()
	}
	return runPlan(ctx, o, p, stdout, log)
}

// runPlan is run with an explicit plan (the test passes a tiny one).
func runPlan(ctx context.Context, o options, p plan, stdout, log io.Writer) error {
	if o.reps <= 0 {
		o.reps = 3
		if o.quick {
			o.reps = 1
		}
	}
	if o.only != "" {
		ids := strings.Split(o.only, ",")
		p.Raw, p.Lock, p.Extra, p.Count = keep(p.Raw, ids...), keep(p.Lock, ids...), keep(p.Extra, ids...), keep(p.Count, ids...)
		p.Multi, p.Sticky = keep(p.Multi, ids...), keep(p.Sticky, ids...)
		if !slices.Contains(ids, idLimit) {
			p.LimitSteps = nil
		}
	}
	d := &runData{plan: p, reps: o.reps, command: o.command, started: time.Now(),
		results: map[key][]harness.Result{}, counts: map[key]countResult{}}
	selected := map[string]bool{}
	for _, n := range strings.Split(o.peers, ",") {
		if n = strings.TrimSpace(n); n != "" {
			selected[n] = true
		}
	}
	ps := allPeers(selected)
	if len(ps) == 0 {
		return errNoPeers
	}
	if hasProcessPeer(ps) {
		d.notes = append(ensurePeers(ctx, !o.noInstall, log), d.notes...)
		ps = dropMissing(ps, d)
	}
	srv, err := startServer(ctx, o.servers)
	if err != nil {
		return err
	}
	defer srv.close()
	d.env = collectEnv(ctx, srv.first, srv.config)
	for _, e := range ps {
		d.peers = append(d.peers, e.peer.Name())
	}
	base := fmt.Sprintf("/bench-%d", d.started.UnixNano())
	fmt.Fprintf(log, "bench: %s plan, %d repetition(s), peers: %s, server %s\n", p.Name, d.reps, strings.Join(d.peers, ", "), srv.connect)
	if o.warmup > 0 {
		t0 := time.Now()
		n, err := zkpeers.WarmServer(ctx, srv.connect, base, 8, o.warmup)
		if err != nil {
			return err
		}
		d.warmup = fmt.Sprintf("%v of plain lock requests (create, getChildren, getData, delete) from 8 sessions before the first timed run: %d cycles", time.Since(t0).Round(100*time.Millisecond), n)
		fmt.Fprintf(log, "bench: server warm-up, %d cycles in %v\n", n, time.Since(t0).Round(100*time.Millisecond))
	}
	stopProf, err := startProfile(o.cpuprof)
	if err != nil {
		return err
	}
	err = runReps(ctx, d, ps, srv.connect, srv.first, base, log)
	stopProf()
	if err != nil {
		return err
	}
	if !o.noCount {
		if err := countPass(ctx, d, ps, srv.first, base, log); err != nil {
			d.countErr = err.Error()
		}
	}
	if err := depthPass(ctx, d, ps, srv.connect, srv.first, base, log); err != nil {
		return err
	}
	if len(p.LimitSteps) > 0 {
		if err := limitPass(ctx, d, ps, srv.first, base, log); err != nil {
			d.limitErr = err.Error()
		}
	}
	d.elapsed = time.Since(d.started)
	if err := emit(d, o.out, stdout); err != nil {
		return err
	}
	if o.history != "" {
		return keepHistory(ctx, d, o.history, log)
	}
	return nil
}

// emit writes the report to stdout and, if out is set, to that file.
func emit(d *runData, out string, stdout io.Writer) error {
	var b strings.Builder
	if err := writeReport(&b, d); err != nil {
		return err
	}
	return emitText(b.String(), out, stdout)
}

// emitText writes a report to stdout and, if out is set, to that file (-out; the pair mode's
// report too).
func emitText(text, out string, stdout io.Writer) error {
	if _, err := io.WriteString(stdout, text); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	return os.WriteFile(out, []byte(text), 0o644)
}

// startProfile starts a CPU profile into path ("" = none) and returns its stop function.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
