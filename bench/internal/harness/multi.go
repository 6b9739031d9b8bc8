package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Multi-lock acquire modes.
const (
	// MultiTx queues the whole set in one ZooKeeper transaction (zkrecipes NewTxMultiMutex); the
	// paths are used in the random order they come in.
	MultiTx = "tx"
	// MultiSeq takes one lock after another in sorted path order (zkrecipes NewMultiMutex sorts;
	// the Curator peer sorts its lists for InterProcessMultiLock).
	MultiSeq = "seq"
	// MultiNaive takes one mutex after another in the random order given, holding the earlier
	// ones while it waits: no sorting, no transaction. It can deadlock; the contended scenario
	// shows it as deadline hits (the check that the scenario can see a deadlock at all).
	MultiNaive = "naive"
)

// multiLocker returns the session's multi-lock over paths in mode.
func multiLocker(s Session, paths []string, mode string) (Locker, error) {
	if mode == MultiNaive {
		return newNaiveMulti(s, paths)
	}
	ms, ok := s.(MultiModeSession)
	if !ok {
		return nil, ErrUnsupported
	}
	return ms.MultiLockMode(paths, mode)
}

// naiveMulti is MultiNaive over a session's mutexes.
type naiveMulti struct {
	locks []Locker
	held  int
}

// naiveLocks caches one mutex per path per session (each session has one worker).
var naiveLocks sync.Map // map[naiveKey]Locker

type naiveKey struct {
	s    Session
	path string
}

func newNaiveMulti(s Session, paths []string) (*naiveMulti, error) {
	m := &naiveMulti{}
	for _, p := range paths {
		l, ok := naiveLocks.Load(naiveKey{s, p})
		if !ok {
			nl, err := s.Mutex(p)
			if err != nil {
				return nil, err
			}
			l, _ = naiveLocks.LoadOrStore(naiveKey{s, p}, nl)
		}
		m.locks = append(m.locks, l.(Locker))
	}
	return m, nil
}

// Acquire takes the locks in order; on failure it releases those it holds (bounded by 10 s).
func (m *naiveMulti) Acquire(ctx context.Context) error {
	for i, l := range m.locks {
		if err := l.Acquire(ctx); err != nil {
			m.held = i
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			return errors.Join(err, m.Release(rctx))
		}
	}
	m.held = len(m.locks)
	return nil
}

// Release releases the locks held, last first.
func (m *naiveMulti) Release(ctx context.Context) error {
	var errs []error
	for i := m.held - 1; i >= 0; i-- {
		errs = append(errs, m.locks[i].Release(ctx))
	}
	m.held = 0
	return errors.Join(errs...)
}

// runMultiUncontended: WarmCycles cycles (at least one), then a timed window of acquire+release
// cycles of one multi-lock over Paths paths on one session. Like runUncontended it calls the
// "first" mark after the very first cycle and the "end" mark after the window, so the counting
// pass can leave the session's set-up and tear-down out of its figures per acquisition.
func runMultiUncontended(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, 1)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	paths := make([]string, sc.Paths)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/p%d", sc.Root, i)
	}
	l, err := multiLocker(ss[0], paths, sc.Mode)
	if err != nil {
		return Result{}, err
	}
	cycle := func() error {
		if err := l.Acquire(ctx); err != nil {
			return err
		}
		return l.Release(ctx)
	}
	warm := max(sc.WarmCycles, 1)
	for i := 0; i < warm; i++ {
		if err := cycle(); err != nil {
			return Result{}, fmt.Errorf("warm-up: %w", err)
		}
		if i == 0 {
			sc.mark(ctx, "first")
		}
	}
	lat := make([]time.Duration, 0, 4096)
	cpu0, start := cpuTime(), time.Now()
	for time.Since(start) < sc.Duration {
		t0 := time.Now()
		if err := cycle(); err != nil {
			return Result{}, err
		}
		lat = append(lat, time.Since(t0))
	}
	secs := time.Since(start).Seconds()
	n := int64(len(lat))
	sc.mark(ctx, "end")
	return Result{Sessions: 1, Cycles: n, TotalCycles: n + int64(warm), Seconds: secs, CyclesPerSec: float64(n) / secs,
		P50Ms: percentileMs(lat, 0.5), P99Ms: percentileMs(lat, 0.99), CPUUsPerOp: cpuPerOp(cpu0, cpuTime(), n)}, nil
}

// multiWorker is one session's loop state in runMultiContended.
type multiWorker struct {
	s      Session
	rng    *rand.Rand
	count  atomic.Int64 // acquisitions
	hits   atomic.Int64 // acquires that hit their deadline
	waits  []time.Duration
	inWin  []bool
	hitWin int64
}

// runMultiContended: Sessions sessions, each looping: pick a random set of SetMin..SetMax of
// the Paths paths in a random order, acquire it under Deadline, hold it for Hold, release. It
// reports acquisitions/s, the p50 and p99 wait (the acquire call) over the window, and the
// acquires that hit their deadline (Extra "deadline_hits" in the window, "deadline_hits_all"
// over the whole run). A path held by two sessions at once is a violation.
func runMultiContended(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, sc.Sessions)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	pool := make([]string, sc.Paths)
	for i := range pool {
		pool[i] = fmt.Sprintf("%s/p%d", sc.Root, i)
	}
	if _, err := multiLocker(ss[0], pool[:sc.SetMin], sc.Mode); err != nil {
		return Result{}, err // unsupported mode: before any work
	}
	guards := make([]guard, sc.Paths)
	var measuring atomic.Bool
	ws := make([]*multiWorker, len(ss))
	w := newWorkers(ctx)
	for i, s := range ss {
		mw := &multiWorker{s: s, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))}
		ws[i] = mw
		w.start(func(ctx context.Context) error {
			n := sc.SetMin + mw.rng.IntN(sc.SetMax-sc.SetMin+1)
			idx := mw.rng.Perm(sc.Paths)[:n]
			set := make([]string, n)
			for j, k := range idx {
				set[j] = pool[k]
			}
			l, err := multiLocker(mw.s, set, sc.Mode)
			if err != nil {
				return err
			}
			actx, cancel := context.WithTimeout(ctx, sc.Deadline)
			t0 := time.Now()
			err = l.Acquire(actx)
			wait := time.Since(t0)
			cancel()
			in := measuring.Load()
			if err != nil {
				if ctx.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil) {
					mw.hits.Add(1)
					if in {
						mw.hitWin++
					}
					return nil
				}
				return err
			}
			for _, k := range idx {
				guards[k].enter(1, 1)
			}
			time.Sleep(sc.Hold) // the critical section, not synchronisation
			for _, k := range idx {
				guards[k].leave(1)
			}
			mw.waits, mw.inWin = append(mw.waits, wait), append(mw.inWin, in)
			mw.count.Add(1)
			return l.Release(ctx)
		})
	}
	w.pause(sc.Warmup)
	before := make([]int64, len(ws))
	for i, mw := range ws {
		before[i] = mw.count.Load()
	}
	measuring.Store(true)
	cpu0, t0 := cpuTime(), time.Now()
	w.pause(sc.Duration)
	measuring.Store(false)
	secs, cpu := time.Since(t0).Seconds(), cpuTime()-cpu0
	after := make([]int64, len(ws))
	for i, mw := range ws {
		after[i] = mw.count.Load()
	}
	if err := w.stop(ss); err != nil {
		return Result{}, err
	}
	var waits []time.Duration
	var total, hits, hitsAll, violations int64
	per := make([]int64, len(ws))
	for i, mw := range ws {
		per[i] = after[i] - before[i]
		total += per[i]
		hits += mw.hitWin
		hitsAll += mw.hits.Load()
		for j, d := range mw.waits {
			if mw.inWin[j] {
				waits = append(waits, d)
			}
		}
	}
	for i := range guards {
		violations += guards[i].violations.Load()
	}
	lo, hi := minMax(per)
	return Result{Sessions: sc.Sessions, Cycles: total, TotalCycles: sumWorkers(ws), Seconds: secs,
		CyclesPerSec: float64(total) / secs, P50Ms: percentileMs(waits, 0.5), P99Ms: percentileMs(waits, 0.99),
		MinPerClient: lo, MaxPerClient: hi, Violations: violations,
		CPUUsPerOp: float64(cpu) / 1e3 / float64(max(total, 1)),
		Extra:      map[string]float64{"deadline_hits": float64(hits), "deadline_hits_all": float64(hitsAll)}}, nil
}

func sumWorkers(ws []*multiWorker) int64 {
	var n int64
	for _, w := range ws {
		n += w.count.Load()
	}
	return n
}
