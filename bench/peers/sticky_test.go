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
		return harness.Scenario{Kind: kind, Root: root, Sessions: n, Warmup: 50 * time.Millisecond,
			Duration: 300 * time.Millisecond, WarmCycles: 5}
	}
	aff := q(harness.Affinity, "/benchtest/sticky-s2", 4)
	aff.Paths, aff.OwnPercent = 16, 90
	hand := q(harness.Alternate, "/benchtest/sticky-s3", 2)
	hand.Hold = 5 * time.Millisecond
	rm := q(harness.ReadMostly, "/benchtest/sticky-s5", 3)
	rm.Interval, rm.Duration = 50*time.Millisecond, 500*time.Millisecond
	tests := []struct {
		name string
		sc   harness.Scenario
		p50  bool
	}{
		{"s2 affinity", aff, false},
		{"s3 handover", hand, true},
		{"s5 read-mostly", rm, true},
		{"s5-w uncontended write", q(harness.UncontendedWrite, "/benchtest/sticky-s5w", 1), true},
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
	}
}
