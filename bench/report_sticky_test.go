package main

import (
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

func TestAfterFirst(t *testing.T) {
	first := &markCounts{Requests: map[int32]int64{zktest.OpCreate: 2, zktest.OpGetChildren2: 1}, Notifications: 1,
		Server: &serverCounters{ClientWrites: 3}}
	end := &markCounts{Requests: map[int32]int64{zktest.OpCreate: 2, zktest.OpGetChildren2: 1, zktest.OpDelete: 1}, Notifications: 1,
		Server: &serverCounters{ClientWrites: 4}}
	full := map[int32]int64{zktest.OpCreate: 2, zktest.OpGetChildren2: 1, zktest.OpDelete: 2, zktest.OpCloseSession: 1}
	tests := []struct {
		name     string
		c        countResult
		ok       bool
		requests int64
		per      int64
		writes   int64
	}{
		{"one delete after the first", countResult{Requests: full, Per: 1001, First: first, End: end}, true, 1, 1000, 1},
		{"nothing after the first", countResult{Requests: full, Per: 11, First: first, End: first}, true, 0, 10, 0},
		{"no end mark", countResult{Requests: full, Per: 11, First: first}, false, 0, 0, 0},
		{"a single acquisition", countResult{Requests: full, Per: 1, First: first, End: end}, false, 0, 0, 0},
		{"failed", countResult{Requests: full, Per: 11, First: first, End: end, Err: "x"}, false, 0, 0, 0},
	}
	for _, tt := range tests {
		a, ok := tt.c.afterFirst()
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if got := a.lockRequests(); got != tt.requests || a.Per != tt.per {
			t.Errorf("%s: %d requests over %d, want %d over %d", tt.name, got, a.Per, tt.requests, tt.per)
		}
		if a.Server == nil || a.Server.ClientWrites != tt.writes {
			t.Errorf("%s: server writes %+v, want %d", tt.name, a.Server, tt.writes)
		}
	}
}

// stickyRun is a run whose sticky figures meet every target but s4 (0.5× non-sticky) and whose
// s1 made one request after the first acquisition.
func stickyRun() *runData {
	d := &runData{plan: defaultPlan(), reps: 1, peers: []string{zkrecipesName, zkrecipesStickyName, goLockName, curatorName},
		results: map[key][]harness.Result{}, counts: map[key]countResult{}}
	set := func(p, id string, rate, p50 float64) {
		d.results[key{p, id}] = []harness.Result{{CyclesPerSec: rate, P50Ms: p50, TotalCycles: 10,
			Extra: map[string]float64{"acquire_p50_ms": p50 / 2}}}
	}
	for _, p := range []string{zkrecipesName, goLockName, curatorName} {
		for _, id := range stickyIDs {
			set(p, id, 1000, 2)
		}
	}
	set(zkrecipesName, idUnc, 1000, 2)
	set(zkrecipesStickyName, idS1, 200000, 0.005)
	set(zkrecipesStickyName, idS2, 6000, 1)
	set(zkrecipesStickyName, idS3, 0, 1.9)
	set(zkrecipesStickyName, idS4, 500, 2)
	set(zkrecipesStickyName, idS5, 30000, 2.5)
	d.counts[key{zkrecipesStickyName, idS1}] = countResult{Requests: map[int32]int64{zktest.OpCreate: 1, zktest.OpDelete: 1}, Per: 100,
		First: &markCounts{Requests: map[int32]int64{zktest.OpCreate: 1}}, End: &markCounts{Requests: map[int32]int64{zktest.OpCreate: 1, zktest.OpDelete: 1}}}
	d.counts[key{zkrecipesStickyName, idS5}] = countResult{Requests: map[int32]int64{zktest.OpCreate: 20, zktest.OpGetChildren2: 10},
		Notifications: 10, Per: 1000, Writes: 10}
	return d
}

func TestStickyTargets(t *testing.T) {
	want := map[string]string{
		"s1. acq/s ≥ 100× Curator":                                                          "met",
		"s1. acq/s ≥ 100× zk.Lock":                                                          "met",
		"s1. ZooKeeper requests per acquisition after the first = 0":                        "**missed**",
		"s2. affinity acq/s ≥ 5× Curator":                                                   "met",
		"s2. affinity acq/s ≥ 3× non-sticky zkrecipes":                                      "met",
		"s4. ping-pong acq/s ≥ 0.9× non-sticky zkrecipes":                                   "**missed**",
		"s5. read-mostly reads/s ≥ 20× Curator's read lock":                                 "met",
		"s. 0 mutual-exclusion violations (every s scenario, every peer, every repetition)": "met",
	}
	rows := stickyRun().stickyTargets()
	for _, r := range rows {
		if strings.HasPrefix(r.name, "s3. handover") || strings.HasPrefix(r.name, "s5. writer") {
			if r.verdict != "met" {
				t.Errorf("%s: %s (%s), want met", r.name, r.verdict, r.measured)
			}
		}
		if v, ok := want[r.name]; ok && v != r.verdict {
			t.Errorf("%s: %s (%s), want %s", r.name, r.verdict, r.measured, v)
		}
		delete(want, r.name)
	}
	for name := range want {
		t.Errorf("no row %q", name)
	}
	var b strings.Builder
	d := stickyRun()
	if err := writeReport(&b, d); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Sticky-lease targets", "## s. Sticky leases", "| s1 re-acquire (1 session, 1 lock) | **zkrecipes sticky** |",
		"| s5 read-mostly (8 readers, a write every 100 ms) | go-zookeeper zk.Lock | no read/write lock |",
		"| **zkrecipes sticky** | 10 / 990 | 3.0 | 2.0 | – | 1.0 |"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report lacks %q", s)
		}
	}
}
