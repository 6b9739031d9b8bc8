package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/bench/peers"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Peer names as they appear in the tables.
const (
	rawName     = "raw floor"
	goLockName  = "go-zookeeper zk.Lock"
	curatorName = "Curator"
	kazooName   = "kazoo"
)

// peerEntry is one peer of the run and the scenarios it is given.
type peerEntry struct {
	peer  harness.Peer
	raw   bool // runs plan.Raw instead of plan.Lock
	extra bool // also runs plan.Extra (f)
	// variant: zkrecipes configured otherwise, to measure what one feature costs; it runs only
	// the timed lock scenarios (no counting, depth or queue-limit pass).
	variant bool
	sticky  stickyRole // which sticky scenarios (s) it runs
}

// lockPasses: the peer takes part in the counting, depth and queue-limit passes of a-m.
func (e peerEntry) lockPasses() bool { return !e.raw && !e.variant && e.sticky != stickyOnly }

// key names one figure: a peer under a scenario id.
type key struct{ peer, id string }

// runData is everything a run measured, for the report.
type runData struct {
	plan     plan
	reps     int
	command  string
	started  time.Time
	elapsed  time.Duration
	env      envInfo
	peers    []string // in table order
	results  map[key][]harness.Result
	counts   map[key]countResult
	notes    []string
	countErr string
	limits   map[string][]limitStep // queue-limit pass, per peer
	limitErr string
	warmup   string // what warmed the server before the first timed run
}

// allPeers lists every peer in table order; selected filters by name (empty = all).
func allPeers(selected map[string]bool) []peerEntry {
	all := []peerEntry{
		{peer: zkpeers.RawPeer(), raw: true},
		{peer: zkrecipesPeer(), extra: true, sticky: stickyAlso},
		{peer: zkrecipesStickyPeer(), sticky: stickyOnly},
		{peer: zkpeers.GoLockPeer(), sticky: stickyAlso},
		{peer: peers.CuratorPeer(), extra: true, sticky: stickyAlso},
		{peer: peers.KazooPeer()},
	}
	if len(selected) == 0 {
		return all
	}
	// Diagnostic variants run only when named.
	all = append(all, peerEntry{peer: zkrecipesNoCancelPeer(), variant: true},
		peerEntry{peer: frameworkFloorPeer(false), variant: true}, peerEntry{peer: frameworkFloorPeer(true), variant: true},
		peerEntry{peer: leanEnginePeer(true), variant: true}, peerEntry{peer: leanEnginePeer(false), variant: true})
	var out []peerEntry
	for _, p := range all {
		if selected[p.peer.Name()] || selected[slug(p.peer.Name())] {
			out = append(out, p)
		}
	}
	return out
}

// slug makes a peer name usable in a znode path and on the command line.
func slug(name string) string {
	r := strings.NewReplacer(" ", "-", ".", "", "/", "-")
	return strings.ToLower(r.Replace(name))
}

// scenariosFor gives a peer its scenarios for one repetition, each under its own root; a depth
// scenario gets a server probe at its marks (addr: the server the probe reads).
func scenariosFor(p plan, e peerEntry, base, addr string, rep int) ([]spec, []harness.Scenario, []*serverProbe) {
	specs := p.Lock
	if e.raw {
		specs = p.Raw
	} else if e.extra {
		specs = append(append(append([]spec(nil), p.Lock...), p.Extra...), p.Multi...)
	}
	specs = withSticky(specs, p.Sticky, e)
	if rep < 0 { // the depth pass
		specs = onlyKind(specs, harness.Depth)
	} else { // depth runs in its own pass after the repetitions (it can exhaust the server)
		specs = withoutKind(specs, harness.Depth)
	}
	scs, probes := make([]harness.Scenario, len(specs)), make([]*serverProbe, len(specs))
	for i, s := range specs {
		scs[i] = s.Scenario
		scs[i].Root = fmt.Sprintf("%s/r%d/%s/%s", base, max(rep, 0), slug(e.peer.Name()), s.ID)
		if s.Kind == harness.Depth {
			heap := ""
			if heapProfile != "" && !isProcessPeer(e.peer.Name()) {
				heap = fmt.Sprintf("%s.%s.%s", heapProfile, slug(e.peer.Name()), s.ID)
			}
			probes[i] = newServerProbe(addr, scs[i].Root+"/lock", s.Waiters, min(s.Budget/2, 15*time.Second), heap)
			scs[i].Mark = probes[i].mark
		}
	}
	return specs, scs, probes
}

// onlyKind keeps the scenarios of one kind.
func onlyKind(specs []spec, kind string) []spec {
	var out []spec
	for _, s := range specs {
		if s.Kind == kind {
			out = append(out, s)
		}
	}
	return out
}

// withoutKind drops the scenarios of one kind. The depth scenarios (e) run in the first
// repetition only: queueing thousands of waiters dominates their time (80 s a repetition for
// kazoo at 5,000), and the whole run must stay near 10 minutes.
func withoutKind(specs []spec, kind string) []spec {
	var out []spec
	for _, s := range specs {
		if s.Kind != kind {
			out = append(out, s)
		}
	}
	return out
}

// depthPass runs the depth scenarios (e) once per lock peer, after the repetitions and the
// counting pass: 10,000 waiters can exhaust the server (its replies to slow clients queue up in
// its heap), so nothing else depends on the server surviving it. A server that no longer answers
// "ruok" ends the pass with a note.
func depthPass(ctx context.Context, d *runData, ps []peerEntry, servers, addr, base string, log io.Writer) error {
	for _, e := range ps {
		if !e.lockPasses() {
			continue
		}
		if out, err := zktest.FourLetter(ctx, addr, "ruok"); err != nil || !strings.Contains(out, "imok") {
			d.notes = append(d.notes, fmt.Sprintf("depth pass: the server stopped answering before %s (%v); the rest of e was not run", e.peer.Name(), err))
			return nil
		}
		if err := runOne(ctx, d, e, servers, addr, base, -1, log); err != nil {
			return err
		}
	}
	return nil
}

// runReps runs every peer's scenarios back to back, reps times, rotating the peer order by one
// each repetition (peer-bench.md), and stores each result under its key.
func runReps(ctx context.Context, d *runData, ps []peerEntry, servers, addr, base string, log io.Writer) error {
	for rep := 0; rep < d.reps; rep++ {
		for i := range ps {
			if err := runOne(ctx, d, ps[(i+rep)%len(ps)], servers, addr, base, rep, log); err != nil {
				return err
			}
		}
	}
	return nil
}

// runOne runs one peer's scenarios of one repetition (rep -1: the depth pass) and stores them.
func runOne(ctx context.Context, d *runData, e peerEntry, servers, addr, base string, rep int, log io.Writer) error {
	specs, scs, probes := scenariosFor(d.plan, e, base, addr, rep)
	if len(specs) == 0 {
		return nil
	}
	t0 := time.Now()
	res, err := e.peer.Run(ctx, servers, scs...)
	what := fmt.Sprintf("rep %d/%d", rep+1, d.reps)
	if rep < 0 {
		what = "depth pass"
	}
	fmt.Fprintf(log, "bench: %s %-22s %6.1fs\n", what, e.peer.Name(), time.Since(t0).Seconds())
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		d.notes = append(d.notes, fmt.Sprintf("%s: %s failed as a whole: %v", what, e.peer.Name(), err))
	}
	for j, r := range res {
		if j >= len(specs) {
			break
		}
		if probes[j] != nil {
			probes[j].fill(&r)
		}
		k := key{e.peer.Name(), specs[j].ID}
		if r.Error != "" {
			d.notes = append(d.notes, fmt.Sprintf("%s: %s %s: %s", what, e.peer.Name(), specs[j].ID, r.Error))
		}
		d.results[k] = append(d.results[k], r)
	}
	return nil
}

// errNoPeers: the -peers selection matched nothing.
var errNoPeers = errors.New("bench: no peer selected")

func hasProcessPeer(ps []peerEntry) bool {
	for _, e := range ps {
		if isProcessPeer(e.peer.Name()) {
			return true
		}
	}
	return false
}

// isProcessPeer: the peer runs in a child process (not in this one).
func isProcessPeer(name string) bool { return name == curatorName || name == kazooName }

// heapProfile is the -memprofile prefix: each in-process depth scenario writes a heap profile,
// taken once its queue is full, to <prefix>.<peer>.<id>.
var heapProfile string

// dropMissing removes the process peers whose runtime is still missing (ensurePeers noted why).
func dropMissing(ps []peerEntry, d *runData) []peerEntry {
	var out []peerEntry
	for _, e := range ps {
		switch e.peer.Name() {
		case curatorName:
			if peers.CuratorAvailable() != nil {
				continue
			}
		case kazooName:
			if peers.KazooAvailable() != nil {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}
