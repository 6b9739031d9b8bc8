package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// Scenario ids: the key of a figure across peers and repetitions.
const (
	idUnc    = "a"
	idCont8  = "b8"
	idCont64 = "b64"
	idMany   = "c"
	idHerd   = "d"
	idRW     = "f-rw"
	idSem    = "f-sem"
	idMulti  = "f-multi"

	// m: multi-locks. Uncontended ids are "m<k>-<mode>" (multiUncID); contended ones below.
	idMultiContTx    = "mc-tx"
	idMultiContSeq   = "mc-seq"
	idMultiContNaive = "mc-naive"

	idRawPair  = "raw-pair"
	idRawCGCD  = "raw-cgcd"
	idRawGC    = "raw-getchildren"
	idRawGD    = "raw-getdata"
	idRawDel   = "raw-delete"
	idRawHand  = "raw-handoff"
	idRawTP1   = "raw-tp1"
	idRawTP8   = "raw-tp8"
	idRawTP64  = "raw-tp64"
	idRawSes64 = "raw-sessions64"
)

// spec is one scenario of the plan under its id; Root is filled per peer and repetition.
type spec struct {
	ID string
	harness.Scenario
}

// plan is what one run executes: the raw floor, the lock scenarios every lock peer runs, the
// f scenarios (zkrecipes and Curator only) and the separate counting pass through the proxy.
type plan struct {
	Name  string
	Raw   []spec
	Lock  []spec
	Extra []spec // f: rw, semaphore, multi-lock
	Multi []spec // m: multi-locks, uncontended over k paths and contended (zkrecipes and Curator)
	// Sticky: s, sticky leases (issue 28): every lock peer but kazoo, and zkrecipes sticky.
	Sticky []spec
	Count  []spec // counting pass (timings discarded)
	// LimitSteps are the queue lengths the queue-limit pass tries, rising (none: no pass).
	LimitSteps []int
}

// timing is the knobs a plan scales.
type timing struct {
	warm, window, rawWin, handoffWin time.Duration
	warmCycles, releases             int
	herdReleases                     int // d's timed releases per repetition
	multiWarmCycles                  int
	multiWin, naiveWin               time.Duration // m: the contended windows
	depths                           []int
	depthBudget                      func(waiters int) time.Duration // bound on filling, and on draining, one depth
	limitSteps                       []int
}

func defaultPlan() plan {
	return buildPlan("default", timing{warm: 500 * time.Millisecond, window: 1500 * time.Millisecond, rawWin: time.Second,
		handoffWin: time.Second, warmCycles: 1000, releases: 15, herdReleases: 60, depths: []int{1, 64, 1000, 10000},
		multiWarmCycles: 200, multiWin: time.Minute, naiveWin: 20 * time.Second,
		depthBudget: depthBudget, limitSteps: []int{10000, 15000, 17500, 20000, 30000, 40000}})
}

// quickPlan is one short pass: N=64 contention is left out, the queue of e is 500 deep, and the
// counting pass covers a, b, d, m4, the contended multi-locks and s only, so that the whole run
// stays near a minute.
func quickPlan() plan {
	p := buildPlan("quick", timing{warm: 200 * time.Millisecond, window: 500 * time.Millisecond,
		rawWin: 300 * time.Millisecond, handoffWin: 400 * time.Millisecond, warmCycles: 100, releases: 5, herdReleases: 5,
		multiWarmCycles: 50, multiWin: 5 * time.Second, naiveWin: 5 * time.Second,
		depths: []int{1, 64, 500}, depthBudget: depthBudget, limitSteps: []int{5000}})
	p.Lock = without(p.Lock, idCont64)
	p.Count = keep(p.Count, append([]string{idUnc, idCont8, idHerd, multiUncID(4, harness.MultiTx),
		multiUncID(4, harness.MultiSeq), idMultiContTx, idMultiContSeq}, stickyIDs...)...)
	return p
}

func without(ss []spec, id string) []spec {
	var out []spec
	for _, s := range ss {
		if s.ID != id {
			out = append(out, s)
		}
	}
	return out
}

func keep(ss []spec, ids ...string) []spec {
	var out []spec
	for _, s := range ss {
		for _, id := range ids {
			if s.ID == id {
				out = append(out, s)
			}
		}
	}
	return out
}

// depthSessions: the e waiters are spread over this many sessions (issue 12).
const depthSessions = 100

// depthBudget bounds filling a queue of this depth; drainBudget the timed releases and the
// drain. A peer that cannot keep up ends the depth as "not within the bound" instead of holding
// the run (the default run stays near 15 minutes on 2 cores).
func depthBudget(waiters int) time.Duration {
	switch {
	case waiters <= 64:
		return 20 * time.Second
	case waiters <= 1000:
		return 40 * time.Second
	}
	return 60 * time.Second
}

func drainBudget(waiters int) time.Duration {
	switch {
	case waiters <= 64:
		return 20 * time.Second
	case waiters <= 1000:
		return 35 * time.Second
	}
	// Every handoff at 10,000 waiters lists the whole queue (~550 KB): ~6 ms each, ~60 s to drain.
	return 150 * time.Second
}

func buildPlan(name string, t timing) plan {
	loop := func(id, kind string, n int) spec {
		return spec{id, harness.Scenario{Kind: kind, Sessions: n, Warmup: t.warm, Duration: t.window}}
	}
	raw := func(id, kind string, n int, d time.Duration) spec {
		return spec{id, harness.Scenario{Kind: kind, Sessions: n, Warmup: t.warm / 2, Duration: d}}
	}
	p := plan{Name: name, LimitSteps: t.limitSteps}
	p.Raw = []spec{
		raw(idRawPair, harness.RawPair, 1, t.rawWin), raw(idRawCGCD, harness.RawCGCD, 1, t.rawWin),
		raw(idRawGC, harness.RawGetChildren, 1, t.rawWin), raw(idRawGD, harness.RawGetData, 1, t.rawWin),
		raw(idRawDel, harness.RawDelete, 1, t.rawWin), raw(idRawHand, harness.RawHandoff, 2, t.handoffWin),
		raw(idRawTP1, harness.RawThroughput, 1, t.rawWin), raw(idRawTP8, harness.RawThroughput, 8, t.rawWin),
		raw(idRawTP64, harness.RawThroughput, 64, t.rawWin), raw(idRawSes64, harness.RawSessions, 64, t.rawWin),
	}
	unc := spec{idUnc, harness.Scenario{Kind: harness.Uncontended, Sessions: 1, WarmCycles: t.warmCycles, Duration: t.window}}
	herd := spec{idHerd, harness.Scenario{Kind: harness.Herd, Sessions: 64, Releases: t.herdReleases}}
	p.Lock = []spec{unc, loop(idCont8, harness.Contended, 8), loop(idCont64, harness.Contended, 64),
		loop(idMany, harness.ManyLocks, 64), herd}
	for _, w := range t.depths {
		p.Lock = append(p.Lock, spec{depthID(w), harness.Scenario{Kind: harness.Depth, Sessions: depthSessions,
			Waiters: w, Releases: min(t.releases, w), Budget: t.depthBudget(w), DrainBudget: drainBudget(w)}})
	}
	rw := loop(idRW, harness.RW, 8)
	rw.ReadPercent = 90
	sem := loop(idSem, harness.Semaphore, 8)
	sem.Leases = 4
	p.Extra = []spec{rw, sem, loop(idMulti, harness.MultiLock, 8)}
	p.Multi = multiSpecs(t)
	p.Sticky = stickySpecs(t)
	p.Count = append(countSpecs(t), stickyCountSpecs(t)...)
	return p
}

// multiKs are the set sizes of the uncontended multi-lock scenarios.
var multiKs = []int{1, 2, 4, 8}

// multiUncID is the id of the uncontended multi-lock scenario over k paths in mode: "m4-tx".
func multiUncID(k int, mode string) string { return fmt.Sprintf("m%d-%s", k, mode) }

// multiSpecs: uncontended acquire+release over k = 1, 2, 4, 8 paths, transactional and
// sequential (Curator: sequential, its lists sorted), then the contended scenario: 16 sessions,
// each taking random sets of 2 to 4 of 8 paths (unsorted for the transactional mode), 1 ms
// critical section, 5 s deadline per acquire; and the naive unsorted one-at-a-time multi-lock
// that can deadlock, to show the scenario sees a deadlock when there is one.
func multiSpecs(t timing) []spec {
	var out []spec
	for _, k := range multiKs {
		for _, mode := range []string{harness.MultiTx, harness.MultiSeq} {
			out = append(out, spec{multiUncID(k, mode), harness.Scenario{Kind: harness.MultiUncontended, Sessions: 1,
				Paths: k, Mode: mode, WarmCycles: t.multiWarmCycles, Duration: t.window}})
		}
	}
	cont := func(id, mode string, d time.Duration) spec {
		return spec{id, harness.Scenario{Kind: harness.MultiContended, Sessions: 16, Paths: 8, SetMin: 2, SetMax: 4,
			Hold: time.Millisecond, Deadline: 5 * time.Second, Mode: mode, Warmup: t.warm, Duration: d}}
	}
	return append(out, cont(idMultiContTx, harness.MultiTx, t.multiWin), cont(idMultiContSeq, harness.MultiSeq, t.multiWin),
		cont(idMultiContNaive, harness.MultiNaive, t.naiveWin))
}

// countMultiIDs are the multi-lock scenarios of the counting pass: k = 1, 4, 8 uncontended and
// the contended ones (not the naive one: it deadlocks by design).
var countMultiIDs = []string{multiUncID(1, harness.MultiTx), multiUncID(1, harness.MultiSeq),
	multiUncID(4, harness.MultiTx), multiUncID(4, harness.MultiSeq), multiUncID(8, harness.MultiTx),
	multiUncID(8, harness.MultiSeq), idMultiContTx, idMultiContSeq}

// countSpecs: the counting pass runs short versions; only request, notification and the
// server's write and fsync counts are used.
func countSpecs(t timing) []spec {
	short := func(id, kind string, n int) spec {
		return spec{id, harness.Scenario{Kind: kind, Sessions: n, Warmup: 100 * time.Millisecond, Duration: 700 * time.Millisecond}}
	}
	unc := spec{idUnc, harness.Scenario{Kind: harness.Uncontended, Sessions: 1, WarmCycles: 0, Duration: time.Second}}
	herd := spec{idHerd, harness.Scenario{Kind: harness.Herd, Sessions: 64, Releases: min(t.releases, 10)}}
	rw := short(idRW, harness.RW, 8)
	rw.ReadPercent = 90
	sem := short(idSem, harness.Semaphore, 8)
	sem.Leases = 4
	out := []spec{unc, short(idCont8, harness.Contended, 8), herd, rw, sem, short(idMulti, harness.MultiLock, 8)}
	for _, s := range keep(multiSpecs(t), countMultiIDs...) {
		if s.Kind == harness.MultiUncontended {
			s.WarmCycles, s.Duration = 0, time.Second // as a
		} else {
			s.Warmup, s.Duration = 100*time.Millisecond, 700*time.Millisecond // as short
		}
		out = append(out, s)
	}
	return out
}

// depthID is the id of the depth scenario with this many waiters: "e1", "e64", "e10000".
func depthID(waiters int) string { return "e" + strconv.Itoa(waiters) }
