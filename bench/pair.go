package main

// The pair mode (issue 27): two Go peers, each in a process of its own, run one scenario at the
// same time against one server, round after round, and the driver compares them within each round.
// On a shared 2-core machine the speed of the machine moves by tens of per cent within a minute,
// so sequential runs of two peers compare two machines; two processes that run at the same time
// see the same one. Each round also runs the first peer against itself (the control), whose
// spread is what the method can resolve.
//
//	go run ./bench -pair zkrecipes,go-zookeeper-zklock -only b8,b64 -pair-rounds 12

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

var (
	pairPeers  = flag.String("pair", "", "pair mode: two comma-separated Go peers run each scenario of -only (default b8) at the same time, in processes of their own")
	pairRounds = flag.Int("pair-rounds", 10, "pair mode: rounds (each runs the control pair and the pair)")
	pairWindow = flag.Duration("pair-window", 3*time.Second, "pair mode: the timed window of each run (after -pair-warmup)")
	pairWarmup = flag.Duration("pair-warmup", 500*time.Millisecond, "pair mode: how long each run contends before its timed window")
	pairEnvB   = flag.String("pair-env-b", "", "pair mode: space-separated NAME=VALUE settings for the second peer's process only (GOGC=200, GODEBUG=...)")
	pairExecB  = flag.String("pair-exec-b", "", "pair mode: run the second peer from this bench binary (another revision, go build -o) instead of this one")
	pairSeq    = flag.Bool("pair-seq", false, "pair mode: run the two processes of a round one after the other (alternating which goes first) instead of at the same time: the bench's operating point, with the machine's drift between them")
	pairChild  = flag.String("pair-child", "", "internal: run one scenario (-pair-scenario, under -pair-root) with this peer and print its result as JSON")
	pairScen   = flag.String("pair-scenario", "", "internal: the scenario id of -pair-child")
	pairRoot   = flag.String("pair-root", "", "internal: the root znode of -pair-child")
)

// errPairPeers: -pair names something other than two Go peers.
var errPairPeers = errors.New("bench: -pair takes two Go peers (zkrecipes, zkrecipes-no-cancel, zkrecipes-sticky, go-zookeeper-zklock, framework-floor, framework-floor-no-cancel, lean-engine, lean-engine-no-cancel)")

// pairScenario is the scenario id of the default plan's lock or sticky scenarios, with the pair
// mode's window.
func pairScenario(id string) (harness.Scenario, error) {
	p := defaultPlan()
	for _, s := range append(append([]spec(nil), p.Lock...), p.Sticky...) {
		if s.ID == id {
			sc := s.Scenario
			if sc.Duration > 0 {
				sc.Warmup, sc.Duration = *pairWarmup, *pairWindow
			}
			return sc, nil
		}
	}
	return harness.Scenario{}, fmt.Errorf("bench: -pair: no lock scenario %q", id)
}

// goPeer finds a Go peer by name or slug.
func goPeer(name string) (harness.Peer, error) {
	for _, e := range allPeers(map[string]bool{name: true}) {
		if _, ok := e.peer.(harness.GoPeer); ok && !e.raw {
			return e.peer, nil
		}
	}
	return nil, fmt.Errorf("%w: %q", errPairPeers, name)
}

// runPairChild is the child's side: one scenario, its result as one JSON line.
func runPairChild(ctx context.Context, servers string, stdout io.Writer) error {
	p, err := goPeer(*pairChild)
	if err != nil {
		return err
	}
	sc, err := pairScenario(*pairScen)
	if err != nil {
		return err
	}
	sc.Root = *pairRoot
	res, err := p.Run(ctx, servers, sc)
	if err != nil {
		return err
	}
	if len(res) != 1 || res[0].Error != "" {
		return fmt.Errorf("bench: %s %s: %v", *pairChild, *pairScen, res)
	}
	return json.NewEncoder(stdout).Encode(res[0])
}

// pairRun is one round's two results.
type pairRun struct{ a, b harness.Result }

// runPairs is the parent's side: the server, the rounds, the report.
func runPairs(ctx context.Context, o options, stdout, log io.Writer) error {
	names := strings.Split(*pairPeers, ",")
	if len(names) != 2 {
		return errPairPeers
	}
	for _, n := range names {
		if _, err := goPeer(n); err != nil {
			return err
		}
	}
	ids := []string{idCont8}
	if o.only != "" {
		ids = strings.Split(o.only, ",")
	}
	for _, id := range ids {
		if _, err := pairScenario(id); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	srv, err := startServer(ctx, o.servers)
	if err != nil {
		return err
	}
	defer srv.close()
	base := fmt.Sprintf("/pair-%d", time.Now().UnixNano())
	control, pair := map[string][]pairRun{}, map[string][]pairRun{}
	started := time.Now()
	for r := 0; r < *pairRounds; r++ {
		for _, id := range ids {
			for _, c := range []struct {
				b       string
				out     map[string][]pairRun
				control bool
			}{{names[0], control, true}, {names[1], pair, false}} {
				root := fmt.Sprintf("%s/r%d/%s", base, r, id)
				run, err := runPairOnce(ctx, self, srv.connect, id, root, names[0], c.b, r%2 == 1, c.control)
				if err != nil {
					return err
				}
				c.out[id] = append(c.out[id], run)
				fmt.Fprintf(log, "pair: round %d %s %s/%s: CPU %.0f / %.0f µs per acquisition, %.0f / %.0f acq/s\n",
					r+1, id, names[0], c.b, run.a.CPUUsPerOp, run.b.CPUUsPerOp, run.a.CyclesPerSec, run.b.CyclesPerSec)
			}
		}
	}
	var b strings.Builder
	writePairReport(&b, o, names, ids, control, pair, time.Since(started))
	return emitText(b.String(), o.out, stdout)
}

// runPairOnce starts the two children at once and waits for both; swap starts b's first (the
// one started second ran about 2 % slower in the controls: the rounds alternate).
// control runs the first peer, as built and set, twice.
func runPairOnce(ctx context.Context, self, servers, id, root, a, b string, swap, control bool) (pairRun, error) {
	type out struct {
		res harness.Result
		err error
	}
	// A child runs one scenario: its connects, the warm-up and the window, well within this bound.
	ctx, cancel := context.WithTimeout(ctx, *pairWarmup+*pairWindow+2*time.Minute)
	defer cancel()
	ch := make([]chan out, 2)
	order := []int{0, 1}
	if swap {
		order = []int{1, 0}
	}
	for _, i := range order {
		name := []string{a, b}[i]
		ch[i] = make(chan out, 1)
		bin, env := self, []string{"ZK_SERVERS=" + servers}
		if i == 1 && !control {
			if *pairExecB != "" {
				bin = *pairExecB
			}
			env = append(env, strings.Fields(*pairEnvB)...)
		}
		args := []string{"-pair-child", name, "-pair-scenario", id,
			"-pair-root", fmt.Sprintf("%s/%d", root, i), "-pair-window", pairWindow.String()}
		if *pairWarmup != 500*time.Millisecond { // only then: a -pair-exec-b binary older than the flag still runs
			args = append(args, "-pair-warmup", pairWarmup.String())
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), env...)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Start(); err != nil {
			return pairRun{}, err
		}
		go func(i int) {
			var o out
			if err := cmd.Wait(); err != nil {
				o.err = fmt.Errorf("bench: pair child %s %s: %w: %s", name, id, err, strings.TrimSpace(se.String()))
			} else if err := json.Unmarshal(so.Bytes(), &o.res); err != nil {
				o.err = fmt.Errorf("bench: pair child %s %s: %w", name, id, err)
			}
			ch[i] <- o
		}(i)
		if *pairSeq { // one after the other: the bench's operating point, one client process at a time
			o := <-ch[i]
			ch[i] <- o
		}
	}
	ra, rb := <-ch[0], <-ch[1]
	return pairRun{ra.res, rb.res}, errors.Join(ra.err, rb.err)
}

// ratios are b's over a's, per round, of one figure.
func ratios(runs []pairRun, f func(harness.Result) float64) []float64 {
	var out []float64
	for _, r := range runs {
		if fa := f(r.a); fa > 0 {
			out = append(out, f(r.b)/fa)
		}
	}
	sort.Float64s(out)
	return out
}

// quartiles are the median, the first and third quartiles, the minimum and the maximum.
func quartiles(v []float64) (med, q1, q3, lo, hi float64) {
	if len(v) == 0 {
		return
	}
	v = slices.Sorted(slices.Values(v))
	at := func(p float64) float64 { return v[int(p*float64(len(v)-1)+0.5)] }
	return at(0.5), at(0.25), at(0.75), v[0], v[len(v)-1]
}

func medianOf(runs []pairRun, f func(pairRun) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	m, _, _, _, _ := quartiles(v)
	return m
}

func writePairReport(w io.Writer, o options, names, ids []string, control, pair map[string][]pairRun, took time.Duration) {
	when := "at the same time"
	if *pairSeq {
		when = "one after the other (-pair-seq)"
	}
	fmt.Fprintf(w, "# Pair mode: %s against %s, %s\n\n", names[1], names[0], when)
	fmt.Fprintf(w, "`%s`, %d rounds, window %s after a %s warm-up, %.1f min. Each round runs %s against itself "+
		"(the control) and %s against %s, each peer in a process of its own, %s, on one server "+
		"(forceSync=yes unless ZK_SERVERS). Ratios are per round, %s's figure over %s's; medians [q1–q3] (min–max).\n\n",
		o.command, *pairRounds, *pairWindow, *pairWarmup, took.Minutes(), names[0], names[1], names[0], when, "the second", "the first")
	fmt.Fprintln(w, "| scenario | pair | client CPU per acq, ratio | acq/s, ratio | client CPU µs per acq (first / second) | acq/s (first / second) | heap allocs per acq (first / second) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	cpu := func(r harness.Result) float64 { return r.CPUUsPerOp }
	rate := func(r harness.Result) float64 { return r.CyclesPerSec }
	allocs := func(r harness.Result) float64 { return r.Extra["allocs_per_op"] }
	for _, id := range ids {
		for _, c := range []struct {
			label string
			runs  []pairRun
		}{{names[0] + " / " + names[0] + " (control)", control[id]}, {names[1] + pairVariant() + " / " + names[0], pair[id]}} {
			m, q1, q3, lo, hi := quartiles(ratios(c.runs, cpu))
			am, aq1, aq3, _, _ := quartiles(ratios(c.runs, rate))
			fa := func(f func(harness.Result) float64) string {
				return fmt.Sprintf("%.0f / %.0f", medianOf(c.runs, func(r pairRun) float64 { return f(r.a) }),
					medianOf(c.runs, func(r pairRun) float64 { return f(r.b) }))
			}
			fmt.Fprintf(w, "| %s | %s | %.3f× [%.2f–%.2f] (%.2f–%.2f) | %.3f× [%.2f–%.2f] | %s | %s | %s |\n",
				id, c.label, m, q1, q3, lo, hi, am, aq1, aq3, fa(cpu), fa(rate), fa(allocs))
		}
	}
}

// pairVariant names what -pair-env-b and -pair-exec-b change in the second peer's runs.
func pairVariant() string {
	var v []string
	if *pairEnvB != "" {
		v = append(v, *pairEnvB)
	}
	if *pairExecB != "" {
		v = append(v, "built as "+*pairExecB)
	}
	if len(v) == 0 {
		return ""
	}
	return " (" + strings.Join(v, ", ") + ")"
}
