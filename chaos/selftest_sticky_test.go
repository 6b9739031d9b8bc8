package chaos

import (
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
	env := newSelfTestEnv(t)
	// 4 sticky clients of one worker, 8 paths (4 mutexes, 4 read-write locks), no plain or
	// Curator contenders: the other sticky clients are the conflicting contenders.
	affinity := WorkloadSpec{Kind: WSticky, Clients: 4, Workers: 1, Paths: 8, Own: 50, CS: 10 * time.Millisecond}
	// Two believers at once: belief judges them on the mutex paths, recipe (a writer beside
	// anyone) on the read-write paths.
	overlaps := []string{CBelief, CRecipe}
	env.run(t, wantAny, []selfTest{
		{"re-grants after a conflicting contender queued", Scenario{Row: 21, Name: "sticky-contenders", SkipLive: true,
			Wrap: newBrokenStickies(ignoresContenders).wrap, Workload: affinity}, overlaps, 0},
		{"re-grants after its session epoch ended, expiries", Scenario{Row: 21, Name: "sticky-epoch", SkipLive: true,
			Wrap: newBrokenStickies(ignoresEpoch).wrap, Workload: affinity, Faults: []FaultKind{Expire}, Gap: time.Second},
			overlaps, 10 * time.Second},
		{"control: the real sticky locks, expiries", Scenario{Row: 21, Name: "control-sticky", SkipLive: true,
			Workload: affinity, Faults: []FaultKind{Expire}, Gap: time.Second, LiveOrphans: true}, nil, 10 * time.Second},
	})
}
