package chaos

import (
	"context"
	"testing"
	"time"
)

// Row 30's self-test (row 21's way): two broken sticky locks on row 30's workload (affinity:
// each client mostly on its own two locks, now and then on another's) must report overlapping
// believers (belief on a mutex path, recipe on a read-write path): one that re-grants locally
// from its flag after its node went and a conflicting contender got the lock, and one that
// re-grants after its session epoch ended (an expiry). The real lock of the row under the same
// expiries must report nothing.
func TestSelfTestBrokenSticky(t *testing.T) {
	if *flagFull {
		t.Skip("the self-tests run in the fast suite")
	}
	cluster := ensemble(t)
	s := seed(t)
	cfg := Config{Seed: s, T: 3 * time.Second, Phase: 4 * time.Second, HistoryDir: t.TempDir()}
	// 4 sticky clients of one worker, 8 paths (4 mutexes, 4 read-write locks), no plain or
	// Curator contenders: the other sticky clients are the conflicting contenders.
	affinity := WorkloadSpec{Kind: WSticky, Clients: 4, Workers: 1, Paths: 8, Own: 50, CS: 10 * time.Millisecond}
	// Two believers at once: belief judges them on the mutex paths, recipe (a writer beside
	// anyone) on the read-write paths.
	overlaps := []string{CBelief, CRecipe}
	tests := []struct {
		name  string
		sc    Scenario
		want  []string // checkers of which at least one must report; none: the control, which must pass
		phase time.Duration
	}{
		{"re-grants after a conflicting contender queued", Scenario{Row: 21, Name: "sticky-contenders", SkipLive: true,
			Wrap: newBrokenStickies(ignoresContenders).wrap, Workload: affinity}, overlaps, 0},
		{"re-grants after its session epoch ended, expiries", Scenario{Row: 21, Name: "sticky-epoch", SkipLive: true,
			Wrap: newBrokenStickies(ignoresEpoch).wrap, Workload: affinity, Faults: []FaultKind{Expire}, Gap: time.Second},
			overlaps, 10 * time.Second},
		{"control: the real sticky locks, expiries", Scenario{Row: 21, Name: "control-sticky", SkipLive: true,
			Workload: affinity, Faults: []FaultKind{Expire}, Gap: time.Second, LiveOrphans: true}, nil, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cfg := cfg
			if tt.phase > 0 {
				cfg.Phase = tt.phase
			}
			r, err := Run(ctx, cluster, tt.sc, cfg)
			if err != nil {
				t.Fatalf("seed=%d: %v", s, err)
			}
			if tt.want == nil {
				t.Logf("%s: %d grants, %d of them on a node an earlier grant held", tt.name, r.Ops, r.Reused)
				report(t, r)
				return
			}
			n := 0
			for _, c := range tt.want {
				n += r.Verdict.Counts[c]
			}
			if n == 0 {
				t.Errorf("seed=%d: checkers %v reported nothing against %s (counts %v)", s, tt.want, tt.name, r.Verdict.Counts)
			}
			t.Logf("%s: violations found as required, after %d grants: %v (samples: %v)", tt.name, r.Ops, r.Verdict.Counts, r.Verdict.Samples)
		})
	}
}
