package chaos

import "time"

// Size scales the table: the fast suite (go test) or the full one (make chaos).
type Size struct {
	N     int           // clients of the big workloads (64 in reliability.md)
	Small int           // clients of the small ones (8)
	CS    time.Duration // longest critical section
	Gap   time.Duration // between faults
	Herd  int           // sessions of the herd (×20 waiters each)
}

// Fast is the CI size.
var Fast = Size{N: 16, Small: 8, CS: 10 * time.Millisecond, Gap: 3 * time.Second, Herd: 10}

// Full is the soak size.
var Full = Size{N: 32, Small: 8, CS: 20 * time.Millisecond, Gap: 6 * time.Second, Herd: 100}

// Table returns the rows of reliability.md §A4 (row 20 is the sequence
// parser's unit test in driver/, row 21 the self-tests of this package),
// then rows 22-24: leader election under faults that end terms (issue 10),
// rows 25-28: stopping holders (issue 16), row 29: the transactional
// multi-lock under lost replies of its transaction, expiries and cancels (issue 18), row 30: sticky
// leases under faults (issue 28, sticky.go).
func Table(s Size) []Scenario {
	mutex := func(n int) WorkloadSpec { return WorkloadSpec{Kind: WMutex, Clients: n, CS: s.CS} }
	// A term lasts up to 10 critical sections, over which the leader writes.
	elect := func(k Workload) WorkloadSpec { return WorkloadSpec{Kind: k, Clients: s.N, CS: 10 * s.CS} }
	// Rows 25-28: holders that take StopMin..StopMax to stop once told, under blips that their
	// sessions survive (the handoff checker: issue 16 point 7).
	// Holds last up to 10 critical sections, so that a fault usually finds a holder.
	stopping := func(w WorkloadSpec) WorkloadSpec {
		w.StopMin, w.StopMax, w.CS = StopMin, StopMax, 10*s.CS
		return w
	}
	blips := []FaultKind{Reset, BlackholeBrief}
	return []Scenario{
		{Row: 1, Name: "baseline", Workload: mutex(s.N)},
		{Row: 2, Name: "leader SIGKILL+restart", Workload: mutex(s.N), Faults: []FaultKind{KillLeader}, Gap: s.Gap, NoLost: true},
		{Row: 3, Name: "follower SIGKILL+restart, rw", Workload: WorkloadSpec{Kind: WRW, Clients: s.N, CS: s.CS},
			Faults: []FaultKind{KillFollower}, Gap: s.Gap},
		{Row: 4, Name: "leader SIGSTOP 1.5T", Workload: mutex(s.N), Faults: []FaultKind{PauseLeader}, Gap: s.Gap},
		{Row: 5, Name: "quorum loss 2T, sem k=3", Workload: WorkloadSpec{Kind: WSem, Clients: s.N, K: 3, CS: s.CS},
			Faults: []FaultKind{QuorumLoss}, Gap: s.Gap},
		{Row: 6, Name: "holder blackhole 0.5/0.9/2T", Workload: mutex(s.Small),
			Faults: []FaultKind{Blackhole05, Blackhole09, Blackhole2}, Gap: s.Gap},
		{Row: 7, Name: "holder process SIGSTOP 2T", Script: scriptRow7},
		{Row: 8, Name: "forced expiry of a holder", Workload: mutex(s.N), Faults: []FaultKind{Expire}, Gap: s.Gap / 2},
		{Row: 9, Name: "create-reply cut", Workload: mutex(s.N), Faults: []FaultKind{CutCreate}, Gap: s.Gap / 3},
		{Row: 9, Name: "create-reply cut, try-lock", Workload: WorkloadSpec{Kind: WTry, Clients: s.N, CS: s.CS},
			Faults: []FaultKind{CutCreate}, Gap: s.Gap / 3},
		{Row: 10, Name: "delete-reply cut", Workload: mutex(s.N), Faults: []FaultKind{CutDelete}, Gap: s.Gap / 3},
		{Row: 11, Name: "reset storm, rw", Workload: WorkloadSpec{Kind: WRW, Clients: s.N, CS: s.CS},
			Faults: []FaultKind{ResetStorm}, Gap: s.Gap},
		{Row: 11, Name: "reset storm, sem k=3", Workload: WorkloadSpec{Kind: WSem, Clients: s.N, K: 3, CS: s.CS},
			Faults: []FaultKind{ResetStorm}, Gap: s.Gap},
		{Row: 12, Name: "latency 0..T/2 jitter", Workload: mutex(s.N), Faults: []FaultKind{Latency}, Gap: s.Gap},
		{Row: 13, Name: "waiter ahead dies", Script: scriptRow13},
		{Row: 14, Name: "queued waiter's session expires", Script: scriptRow14},
		{Row: 15, Name: "container reaped between holders", Workload: WorkloadSpec{Kind: WMutex, Clients: 2, CS: s.CS, Idle: 1500 * time.Millisecond}},
		{Row: 16, Name: "cancel during wait", Workload: WorkloadSpec{Kind: WCancel, Clients: s.N, CS: s.CS}},
		{Row: 17, Name: "herd", Workload: WorkloadSpec{Kind: WHerd, Clients: s.Herd, Workers: 20}},
		{Row: 18, Name: "rw downgrade", Script: scriptRow18},
		{Row: 19, Name: "multi-lock opposite orders", Script: scriptRow19},
		{Row: 19, Name: "multi-lock random subsets, expiry", Workload: WorkloadSpec{Kind: WMulti, Clients: s.N, Paths: 4, CS: s.CS},
			Faults: []FaultKind{Expire, Blackhole2}, Gap: s.Gap},
		{Row: 22, Name: "leader election (latch), leader SIGKILL", Workload: elect(WLeader),
			Faults: []FaultKind{KillLeader}, Gap: s.Gap, NoLost: true},
		{Row: 23, Name: "leader election (latch), leader's expiry/blackhole 2T", Workload: elect(WLeader),
			Faults: []FaultKind{Expire, Blackhole2}, Gap: s.Gap},
		{Row: 24, Name: "leader election (selector), SIGKILL/expiry/blackhole 2T", Workload: elect(WSelector),
			Faults: []FaultKind{KillLeader, Expire, Blackhole2}, Gap: s.Gap},
		{Row: 25, Name: "stopping holders, holder reset/blackhole 0.4T, mutex", Workload: stopping(mutex(s.Small)),
			Faults: blips, Gap: s.Gap},
		{Row: 26, Name: "stopping holders, holder reset/blackhole 0.4T, sem k=1",
			Workload: stopping(WorkloadSpec{Kind: WSem, Clients: s.Small, K: 1}), Faults: blips, Gap: s.Gap},
		{Row: 27, Name: "stopping leaders, leader reset/blackhole 0.4T, selector",
			Workload: stopping(WorkloadSpec{Kind: WSelector, Clients: s.Small}), Faults: blips, Gap: s.Gap},
		{Row: 28, Name: "stopping command under zklock exec, holder reset/blackhole 0.4T", Script: scriptRow28, Handoff: true},
		{Row: 29, Name: "tx multi-lock random orders, create-reply cut/expiry/cancel", Workload: txMulti(s.N, s.CS),
			Faults: []FaultKind{CutCreate, Expire}, Gap: s.Gap / 3, LiveOrphans: true},
		{Row: 30, Name: "sticky mutexes and rw locks with affinity, plain Go and Curator contenders, resets/blackholes/expiry/kills/cuts",
			Workload: stickyRow(s), Faults: stickyFaults, Gap: s.Gap / 3, Phase: 20 * time.Second, LiveOrphans: true, Handoff: true},
	}
}

// txMulti is row 29's workload (issue 18): transactional multi-locks over random subsets of 2-3
// of 4 paths named in random orders, with cancels and tries among the acquires.
func txMulti(n int, cs time.Duration) WorkloadSpec {
	return WorkloadSpec{Kind: WTxMulti, Clients: n, Paths: 4, CS: cs}
}

// StopMin and StopMax bound the stop delay of rows 25-28's holders: well below the loss grace
// (the session timeout, 3-4 s), as long as a real holder may take to finish its step.
const (
	StopMin = 500 * time.Millisecond
	StopMax = 2 * time.Second
)

// FastRows are the rows CI runs (reliability.md §A4 harness notes).
var FastRows = map[int]bool{1: true, 2: true, 6: true, 8: true, 9: true, 10: true, 13: true, 14: true, 16: true, 18: true, 19: true, 23: true, 25: true, 29: true, 30: true}
