package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Workload names the kind of contention a scenario runs (reliability.md §A4).
type Workload string

// Workloads.
const (
	WMutex  Workload = "mutex"  // acquire, fenced write, hold 0..CS, release
	WRW     Workload = "rw"     // read-write lock, 80 % reads; writers write
	WSem    Workload = "sem"    // semaphore of K leases
	WMulti  Workload = "multi"  // multi-lock over random subsets of Paths mutexes
	WTry    Workload = "try"    // TryAcquire only
	WCancel Workload = "cancel" // acquires with random 1-100 ms deadlines
	WHerd   Workload = "herd"   // many waiters per session on one mutex
	// WTxMulti: a transactional multi-lock over random subsets of Paths mutexes, named in a
	// random order (no sorting); some acquires are cancelled after 1-100 ms, some are tries.
	WTxMulti Workload = "txmulti"
	// WLeader: one LeaderLatch per session on one election path; a leader
	// makes fenced writes while its term is live, then gives leadership up
	// (closes its latch and starts a new one) unless a fault ended the term.
	WLeader Workload = "leader"
	// WSelector: the same with a LeaderSelector (AutoRequeue) whose takeover
	// returns to give leadership up.
	WSelector Workload = "selector"
	// WSticky: sticky mutexes and read-write locks with affinity, plain Go contenders and
	// Curator JVMs on the same paths (row 30, sticky.go).
	WSticky Workload = "sticky"
)

// WorkloadSpec sizes a workload.
type WorkloadSpec struct {
	Kind    Workload
	Clients int           // sessions
	Workers int           // contenders per session (default 1)
	K       int           // semaphore leases (WSem)
	Paths   int           // lock paths (WMulti, WTxMulti)
	CS      time.Duration // longest critical section
	Idle    time.Duration // pause between a worker's acquisitions (lets containers be reaped)
	// StopMin..StopMax, when StopMax > 0, makes every holder a stopping one, as real holders
	// are: once its Done closes it keeps working for a random stop delay in that range (well
	// below the loss grace), records Stopped, and only then releases; a selector's takeover
	// returns only then. The handoff checker judges such rows.
	StopMin, StopMax time.Duration
	// WSticky: the last Plain of the Clients use plain (non-sticky) locks; Curator JVMs contend
	// on the same paths; a sticky client takes Own % of its acquisitions on its own paths.
	Plain, Curator, Own int
}

// lockPath is the run's i-th lock directory.
func (e *Env) lockPath(i int) string { return fmt.Sprintf("%s/locks/l%d", e.Root, i) }

// lockPaths returns the lock paths a workload uses.
func (s WorkloadSpec) lockPaths(e *Env) []string {
	n := 1
	if s.Kind == WMulti || s.Kind == WTxMulti || s.Kind == WSticky {
		n = max(2, s.Paths)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = e.lockPath(i)
	}
	return out
}

// setupRegisters creates the znode register of every lock path.
func (e *Env) setupRegisters(ctx context.Context, paths []string) error {
	for _, p := range paths {
		if _, err := e.admin.Create(ctx, e.dataPath(p), []byte{}, framework.CreatingParents()); err != nil {
			return fmt.Errorf("chaos: register %s: %w", p, err)
		}
	}
	return nil
}

// picker builds client c's lockers and returns how its workers choose.
func (s WorkloadSpec) picker(e *Env, c *Client) (Picker, error) {
	long := 8 * e.T
	p0 := e.lockPath(0)
	switch s.Kind {
	case WMutex, WHerd, WTry, WCancel:
		l, err := MutexLocker(c.FW, p0)
		if err != nil {
			return nil, err
		}
		return func(rng *rand.Rand) OpSpec {
			spec := OpSpec{Locker: l, Res: p0, Mode: "x", Deadline: long, Write: true}
			spec.Try = s.Kind == WTry
			if s.Kind == WCancel {
				spec.Cancel = true
				spec.Deadline = time.Duration(1+rng.IntN(100)) * time.Millisecond
			}
			return spec
		}, nil
	case WRW:
		r, w, err := ReadWriteLockers(c.FW, p0)
		if err != nil {
			return nil, err
		}
		return func(rng *rand.Rand) OpSpec {
			if rng.IntN(100) < 80 {
				return OpSpec{Locker: r, Res: p0, Mode: "r", Deadline: long}
			}
			return OpSpec{Locker: w, Res: p0, Mode: "w", Deadline: long, Write: true}
		}, nil
	case WSem:
		l, err := SemaphoreLocker(c.FW, p0, s.K)
		if err != nil {
			return nil, err
		}
		return func(*rand.Rand) OpSpec {
			return OpSpec{Locker: l, Res: p0, Mode: "s", K: s.K, Deadline: long}
		}, nil
	case WMulti:
		return s.multiPicker(e, c, long), nil
	case WTxMulti:
		return s.txMultiPicker(e, c, long), nil
	case WLeader, WSelector:
		return s.electionPicker(e, c, long)
	case WSticky:
		return s.stickyPicker(e, c)
	}
	return nil, fmt.Errorf("chaos: unknown workload %q", s.Kind)
}

// multiPicker takes a random subset of 2..3 of the paths each time.
func (s WorkloadSpec) multiPicker(e *Env, c *Client, long time.Duration) Picker {
	paths := s.lockPaths(e)
	return func(rng *rand.Rand) OpSpec {
		perm := rng.Perm(len(paths))
		n := 2 + rng.IntN(min(2, len(paths)-1))
		sub := make([]string, n)
		for i := range sub {
			sub[i] = paths[perm[i]]
		}
		l, err := MultiLocker(c.FW, sub...)
		if err != nil {
			panic(err) // distinct, non-nested paths: cannot fail
		}
		return OpSpec{Locker: l, Res: sub[0], Mode: "x", Deadline: long, Write: true}
	}
}

// txMultiPicker takes a random subset of 2..3 of the paths each time, in a random order, through
// a transactional multi-lock: 7 in 10 acquires wait (up to long), 2 in 10 are cancelled by a
// deadline of 1-100 ms (most while queued), 1 in 10 is a TryAcquire.
func (s WorkloadSpec) txMultiPicker(e *Env, c *Client, long time.Duration) Picker {
	paths := s.lockPaths(e)
	return func(rng *rand.Rand) OpSpec {
		perm := rng.Perm(len(paths)) // a random order: crossing orders between callers
		sub := make([]string, 2+rng.IntN(min(2, len(paths)-1)))
		for i := range sub {
			sub[i] = paths[perm[i]]
		}
		l, err := TxMultiLocker(c.FW, sub...)
		if err != nil {
			panic(err) // distinct, non-nested paths: cannot fail
		}
		spec := OpSpec{Locker: l, Res: sub[0], Mode: "x", Deadline: long, Write: true}
		switch r := rng.IntN(10); {
		case r < 2:
			spec.Cancel, spec.Deadline = true, time.Duration(1+rng.IntN(100))*time.Millisecond
		case r < 3:
			spec.Try = true
		}
		return spec
	}
}
