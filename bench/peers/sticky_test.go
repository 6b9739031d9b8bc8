package peers

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// The Curator peer runs the sticky-lease scenarios (issue 28) as the Go harness does: each
// reports acquisitions, a p50 where the scenario has one, and no mutual-exclusion violation.
func TestCuratorStickyScenarios(t *testing.T) {
	if err := CuratorAvailable(); err != nil {
		t.Skip(err)
	}
	q := func(kind, root string, n int) harness.Scenario {
		// A warm-up and a window long enough for a cold JVM on a loaded machine (its first
		// acquisitions load Curator's classes: a second and more).
		return harness.Scenario{Kind: kind, Root: root, Sessions: n, Warmup: time.Second,
			Duration: time.Second, WarmCycles: 20}
	}
	aff := q(harness.Affinity, "/benchtest/sticky-s2", 4)
	aff.Paths, aff.OwnPercent = 16, 90
	hand := q(harness.Alternate, "/benchtest/sticky-s3", 2)
	hand.Hold, hand.Burst = 5*time.Millisecond, 3
	rm := q(harness.ReadMostly, "/benchtest/sticky-s5", 3)
	rm.Interval = 50 * time.Millisecond
	tests := []struct {
		name string
		sc   harness.Scenario
		p50  bool // a p50 of the window's first acquires (s3) or cycles (s5-w)
	}{
		{"s5-w uncontended write", q(harness.UncontendedWrite, "/benchtest/sticky-s5w", 1), true},
		{"s2 affinity", aff, false},
		{"s3 handover", hand, true},
		{"s5 read-mostly", rm, false},
	}
	scs := make([]harness.Scenario, len(tests))
	for i, tt := range tests {
		scs[i] = tt.sc
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := CuratorPeer().Run(ctx, servers, scs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(tests) {
		t.Fatalf("got %d results, want %d: %+v", len(res), len(tests), res)
	}
	for i, tt := range tests {
		r := res[i]
		if r.Error != "" || r.Unsupported || r.Cycles <= 0 || r.TotalCycles < r.Cycles || r.Violations != 0 || (tt.p50 && r.P50Ms <= 0) {
			t.Errorf("%s: bad result %+v", tt.name, r)
		}
		if tt.sc.Kind == harness.ReadMostly && r.Extra["writes_all"] < 1 { // whether one fell in the window depends on the load
			t.Errorf("%s: the writer never acquired: %+v", tt.name, r)
		}
	}
}
