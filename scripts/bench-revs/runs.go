package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The peers every run compares: zkrecipes and its yardstick, by the driver's names (the -peers
// flag takes the slugs).
const (
	zkrecipesName = "zkrecipes"
	yardstickName = "go-zookeeper zk.Lock"
	peersFlag     = "zkrecipes,go-zookeeper-zklock"
)

// step is one run of the schedule.
type step struct {
	round int // from 1
	side  int // sideBase or sideHead
	count bool
}

// schedule interleaves the sides: base then head in every round, so that each head run has a
// base run beside it under the same load; with alternate, even rounds run head first (base,
// head, head, base, ...), so that a load that keeps rising or falling through the invocation
// does not always favour the same side. The first countRounds rounds count requests too.
func schedule(rounds, countRounds int, alternate bool) []step {
	var out []step
	for r := 1; r <= rounds; r++ {
		order := []int{sideBase, sideHead}
		if alternate && r%2 == 0 {
			order = []int{sideHead, sideBase}
		}
		for _, s := range order {
			out = append(out, step{round: r, side: s, count: r <= countRounds})
		}
	}
	return out
}

// runRecord is what one run of the driver measured, with the load it ran under.
type runRecord struct {
	step
	load    [3]float64 // /proc/loadavg at the start: 1, 5 and 15 minutes
	loadEnd float64    // the 1-minute load at the end
	seconds float64
	record
}

// record is the part of the driver's JSON history record (bench/history.go) read here.
type record struct {
	Commit  string              `json:"commit"`
	Results map[string][]result `json:"results"` // "peer|scenario" → one per repetition
	Counts  map[string]count    `json:"counts"`
}

// result is the part of harness.Result read here.
type result struct {
	Kind         string  `json:"kind"`
	CyclesPerSec float64 `json:"cycles_per_sec"`
	P50Ms        float64 `json:"p50_ms"`
	HandoffP50Ms float64 `json:"handoff_p50_ms"`
	CPUUsPerOp   float64 `json:"client_cpu_us_per_cycle"`
	Unsupported  bool    `json:"unsupported"`
	Error        string  `json:"error"`
}

// count is the part of the driver's countResult read here: requests by opcode (as JSON object
// keys), notifications, and the acquisitions (or releases) they cover.
type count struct {
	Requests      map[string]int64
	Notifications int64
	Per           int64
	PerWhat       string
	Err           string
}

// runOnce runs the driver of one side for one step and reads its record.
func runOnce(ctx context.Context, o options, s side, st step, log io.Writer) (runRecord, error) {
	rec := runRecord{step: st, load: loadAvg()}
	name := fmt.Sprintf("r%d-%s", st.round, s.name)
	hist := filepath.Join(o.keep, name)
	args := []string{"-only", o.only, "-peers", peersFlag, "-reps", strconv.Itoa(o.reps), "-no-install", "-history", hist}
	if !st.count {
		args = append(args, "-no-count")
	}
	if o.cpuprofile {
		args = append(args, "-cpuprofile", filepath.Join(o.keep, name+".pprof"))
	}
	fmt.Fprintf(log, "bench-revs: round %d/%d %s (load %.2f): %s %s\n", st.round, o.rounds, s.name, rec.load[0], s.bin, strings.Join(args, " "))
	rctx, cancel := context.WithTimeout(ctx, o.runTimeout)
	defer cancel()
	t0 := time.Now()
	if err := driver(rctx, s, args, filepath.Join(o.keep, name)); err != nil {
		return rec, fmt.Errorf("round %d %s: %w (log: %s.log)", st.round, s.name, err, filepath.Join(o.keep, name))
	}
	rec.seconds = time.Since(t0).Seconds()
	rec.loadEnd = loadAvg()[0]
	r, err := readRecord(hist)
	if err != nil {
		return rec, fmt.Errorf("round %d %s: %w", st.round, s.name, err)
	}
	rec.record = r
	return rec, nil
}

// driver runs the binary in its checkout, its report into prefix.md and its log into prefix.log.
func driver(ctx context.Context, s side, args []string, prefix string) error {
	stdout, err := os.Create(prefix + ".md")
	if err != nil {
		return err
	}
	defer stdout.Close()
	stderr, err := os.Create(prefix + ".log")
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd := exec.CommandContext(ctx, s.bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = s.dir, stdout, stderr
	cmd.WaitDelay = 30 * time.Second // SIGKILL if it does not stop after ctx ends
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	return cmd.Run()
}

// readRecord parses the one JSON record the driver wrote into dir.
func readRecord(dir string) (record, error) {
	var r record
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return r, err
	}
	if len(files) != 1 {
		return r, fmt.Errorf("expected one JSON record in %s, found %d", dir, len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("record %s: %w", files[0], err)
	}
	return r, nil
}

// loadAvg reads /proc/loadavg (zeros where it cannot be read).
func loadAvg() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	return parseLoadAvg(string(b))
}

// parseLoadAvg takes the first three fields of /proc/loadavg.
func parseLoadAvg(s string) [3]float64 {
	var l [3]float64
	for i, f := range strings.Fields(s) {
		if i >= 3 {
			break
		}
		l[i], _ = strconv.ParseFloat(f, 64)
	}
	return l
}
