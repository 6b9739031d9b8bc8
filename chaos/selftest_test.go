package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
)

// Row 21: every checker runs against a deliberately broken lock (or a
// history that breaks it) and must report the violation, or the test fails.
// Two broken leader latches (one that leads without waiting, one whose term
// never ends on loss) must fail belief (and notify), the real latch not. A
// multi-lock that takes one mutex after another in the caller's order must
// deadlock on crossing orders (live), the transactional one not (row 29).
func TestSelfTestBrokenLocks(t *testing.T) {
	env := newSelfTestEnv(t)
	grab := func(fw *framework.Framework, spec OpSpec) Locker { return grabLock{fw: fw, res: spec.Res} }
	deafen := func(_ *framework.Framework, spec OpSpec) Locker { return deafLock{spec.Locker} }
	unfence := func(_ *framework.Framework, spec OpSpec) Locker { return unfencedLock{spec.Locker} }
	slow := WorkloadSpec{Kind: WMutex, Clients: 4, CS: 600 * time.Millisecond}
	eagerLatch := func(fw *framework.Framework, spec OpSpec) Locker {
		return grabLock{fw: fw, res: spec.Res, name: leader.LatchLockName}
	}
	election := WorkloadSpec{Kind: WLeader, Clients: 4, CS: 600 * time.Millisecond}
	eager := func(fw *framework.Framework, spec OpSpec) Locker {
		return eagerLock{fw: fw, inner: spec.Locker, T: env.cfg.T}
	}
	stoppingMutex := WorkloadSpec{Kind: WMutex, Clients: 4, CS: 200 * time.Millisecond, StopMin: StopMin, StopMax: StopMax}
	// Row 29's workload, smaller and with no faults: sets of 2-3 of 3 paths in crossing orders.
	crossing := WorkloadSpec{Kind: WTxMulti, Clients: 8, Paths: 3, CS: 20 * time.Millisecond}
	// Rare holders: a hold of at most 5 ms, a second between holds; the nemesis must wait for
	// one to pin it and aim the partition at its client.
	rare := WorkloadSpec{Kind: WMutex, Clients: 2, CS: 5 * time.Millisecond, Idle: time.Second}
	env.run(t, wantEach, []selfTest{
		{"grants without waiting, mutex", Scenario{Row: 21, Name: "grab", Wrap: grab, SkipLive: true,
			Workload: WorkloadSpec{Kind: WMutex, Clients: 4, CS: 20 * time.Millisecond}}, []string{CBelief}, 0},
		{"grants without waiting, semaphore k=2", Scenario{Row: 21, Name: "grab-sem", Wrap: grab, SkipLive: true,
			Workload: WorkloadSpec{Kind: WSem, Clients: 6, K: 2, CS: 20 * time.Millisecond}}, []string{CRecipe}, 0},
		{"ignores Done, holder partitioned 2T", Scenario{Row: 21, Name: "deaf", Wrap: deafen, Workload: slow, SkipLive: true,
			Faults: []FaultKind{Blackhole2}, Gap: 2 * time.Second}, []string{CBelief, CNotify}, 0},
		{"ignores Done, holders rare, holder partitioned 2T", Scenario{Row: 21, Name: "deaf-rare", Wrap: deafen, Workload: rare,
			SkipLive: true, Faults: []FaultKind{Blackhole2}, Gap: 2 * time.Second}, []string{CBelief, CNotify}, 0},
		// One partition (at 1-3 s), and the phase ends while it lasts: the pinned hold outlasts the run.
		{"ignores Done, the run ends inside the pinned hold", Scenario{Row: 21, Name: "deaf-short", Wrap: deafen, Workload: slow,
			SkipLive: true, Faults: []FaultKind{Blackhole2}, Gap: 2 * time.Second}, []string{CBelief, CNotify}, 3500 * time.Millisecond},
		{"control: the real mutex, holder partitioned 2T", Scenario{Row: 21, Name: "control", Workload: slow, SkipLive: true,
			Faults: []FaultKind{Blackhole2}, Gap: 2 * time.Second}, nil, 0},
		{"leader latch that leads without waiting", Scenario{Row: 21, Name: "eager-latch", Wrap: eagerLatch, SkipLive: true,
			Workload: WorkloadSpec{Kind: WLeader, Clients: 4, CS: 100 * time.Millisecond}}, []string{CBelief}, 0},
		{"leader latch whose term never ends on loss, leader partitioned 2T", Scenario{Row: 21, Name: "deaf-latch", Wrap: deafen,
			Workload: election, SkipLive: true, Faults: []FaultKind{Blackhole2}, Gap: 2 * time.Second}, []string{CBelief, CNotify}, 0},
		{"control: the real leader latch, leader partitioned 2T", Scenario{Row: 21, Name: "control-latch", Workload: election,
			SkipLive: true, Faults: []FaultKind{Blackhole2}, Gap: 2 * time.Second}, nil, 0},
		{"deletes its node when told (the old loss path), stopping holders reset", Scenario{Row: 21, Name: "eager-delete",
			Wrap: eager, Workload: stoppingMutex, SkipLive: true, Faults: []FaultKind{Reset, BlackholeBrief}, Gap: 2 * time.Second},
			[]string{CHandoff}, 0},
		{"control: the real mutex, stopping holders reset", Scenario{Row: 21, Name: "control-stopping",
			Workload: stoppingMutex, SkipLive: true, Faults: []FaultKind{Reset, BlackholeBrief}, Gap: 2 * time.Second}, nil, 0},
		{"no fencing", Scenario{Row: 21, Name: "unfenced", Wrap: unfence, SkipLive: true,
			Workload: WorkloadSpec{Kind: WMutex, Clients: 4, CS: 5 * time.Millisecond}}, []string{CFence}, 0},
		{"a lease that names another session than its node's", Scenario{Row: 21, Name: "misnamed", SkipLive: true,
			Wrap:     func(_ *framework.Framework, spec OpSpec) Locker { return misnamedLock{spec.Locker} },
			Workload: WorkloadSpec{Kind: WMutex, Clients: 2, CS: 20 * time.Millisecond}}, []string{CAPI}, 0},
		{"cleanliness: an orphan and a leaked watch", Scenario{Row: 21, Name: "litter", Script: litter}, []string{CClean}, 0},
		{"multi-lock one mutex at a time in the caller's order, crossing orders", Scenario{Row: 21, Name: "one-by-one",
			Wrap: oneByOne, Workload: crossing, LiveOrphans: true}, []string{CLive}, 0},
		{"control: the transactional multi-lock, crossing orders", Scenario{Row: 21, Name: "control-tx",
			Workload: crossing, LiveOrphans: true}, nil, 0},
	})
}

// litter leaves a node under a lock path and a watch on the servers.
func litter(ctx context.Context, e *Env, _ Config, _ *Verdict) error {
	if _, err := e.admin.Create(ctx, e.lockPath(0)+"/lock-", nil, framework.CreatingParents(), framework.Protected()); err != nil {
		return err
	}
	_, _, err := e.admin.ExistsW(ctx, e.lockPath(0)+"/never")
	return err
}
