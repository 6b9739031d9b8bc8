package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// runUncontended: WarmCycles cycles, then a timed window of cycles on one session and one path
// (UncontendedWrite: the write side of a read/write lock). After the very first cycle it calls
// the "first" mark and after the window the "end" mark, where the counting pass reads its counts
// to tell the first acquisition's requests from the rest (s1). P50Ms is the whole cycle; Extra "acquire_p50_ms" the acquire alone.
func runUncontended(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, 1)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	l, err := uncontendedLocker(ss[0], sc)
	if err != nil {
		return Result{}, err
	}
	var acq []time.Duration
	cycle := func(t0 time.Time) error {
		if err := l.Acquire(ctx); err != nil {
			return err
		}
		if acq != nil {
			acq = append(acq, time.Since(t0))
		}
		return l.Release(ctx)
	}
	for i := 0; i < max(sc.WarmCycles, 1); i++ {
		if err := cycle(time.Now()); err != nil {
			return Result{}, fmt.Errorf("warm-up: %w", err)
		}
		if i == 0 {
			sc.mark(ctx, "first")
		}
	}
	lat := make([]time.Duration, 0, 4096)
	acq = make([]time.Duration, 0, 4096)
	cpu0, start := cpuTime(), time.Now()
	for time.Since(start) < sc.Duration {
		t0 := time.Now()
		if err := cycle(t0); err != nil {
			return Result{}, err
		}
		lat = append(lat, time.Since(t0))
	}
	secs := time.Since(start).Seconds()
	n := int64(len(lat))
	sc.mark(ctx, "end")
	return Result{Sessions: 1, Cycles: n, TotalCycles: n + int64(max(sc.WarmCycles, 1)), Seconds: secs, CyclesPerSec: float64(n) / secs,
		P50Ms: percentileMs(lat, 0.5), P99Ms: percentileMs(lat, 0.99),
		CPUUsPerOp: cpuPerOp(cpu0, cpuTime(), n), Extra: map[string]float64{"acquire_p50_ms": percentileMs(acq, 0.5)}}, nil
}

// uncontendedLocker is the mutex of a, or the write lock of UncontendedWrite.
func uncontendedLocker(s Session, sc Scenario) (Locker, error) {
	if sc.Kind != UncontendedWrite {
		return s.Mutex(sc.Root + "/lock")
	}
	rws, ok := s.(RWSession)
	if !ok {
		return nil, ErrUnsupported
	}
	return rws.WriteLock(sc.Root + "/rw")
}

// cycleFunc is one worker's acquire, check, release.
type cycleFunc func(ctx context.Context) error

// guard counts holders and records violations of the permitted count.
type guard struct {
	holders    atomic.Int64
	violations atomic.Int64
}

func (g *guard) enter(limit int64, weight int64) {
	if v := g.holders.Add(weight); v > limit {
		g.violations.Add(1)
	}
}

func (g *guard) leave(weight int64) { g.holders.Add(-weight) }

// lockCycle wraps a Locker with a guard check in its (empty) critical section.
func lockCycle(l Locker, g *guard, limit, weight int64) cycleFunc {
	return func(ctx context.Context) error {
		if err := l.Acquire(ctx); err != nil {
			return err
		}
		g.enter(limit, weight)
		g.leave(weight)
		return l.Release(ctx)
	}
}

// buildCycles makes one cycleFunc per session for the loop scenarios.
func buildCycles(ss []Session, sc Scenario) ([]cycleFunc, *guard, error) {
	g := &guard{}
	out := make([]cycleFunc, len(ss))
	for i, s := range ss {
		c, err := buildCycle(s, i, sc, g)
		if err != nil {
			return nil, nil, err
		}
		out[i] = c
	}
	return out, g, nil
}

func buildCycle(s Session, i int, sc Scenario, g *guard) (cycleFunc, error) {
	switch sc.Kind {
	case Contended:
		l, err := s.Mutex(sc.Root + "/lock")
		return lockCycle(l, g, 1, 1), err
	case ManyLocks:
		l, err := s.Mutex(fmt.Sprintf("%s/lock-%d", sc.Root, i))
		return lockCycle(l, &guard{}, 1, 1), err
	case Semaphore:
		ses, ok := s.(SemaphoreSession)
		if !ok {
			return nil, ErrUnsupported
		}
		l, err := ses.Semaphore(sc.Root+"/sem", sc.Leases)
		return lockCycle(l, g, int64(sc.Leases), 1), err
	case MultiLock:
		ms, ok := s.(MultiSession)
		if !ok {
			return nil, ErrUnsupported
		}
		l, err := ms.MultiLock([]string{sc.Root + "/m0", sc.Root + "/m1", sc.Root + "/m2"})
		return lockCycle(l, g, 1, 1), err
	case RW:
		return rwCycle(s, sc, g)
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupported, sc.Kind)
}

// writerWeight makes one writer exceed any number of readers in the guard: a reader may hold
// with readers (limit writerWeight-1), a writer only alone (limit writerWeight).
const writerWeight = 1 << 32

func rwCycle(s Session, sc Scenario, g *guard) (cycleFunc, error) {
	rws, ok := s.(RWSession)
	if !ok {
		return nil, ErrUnsupported
	}
	r, err := rws.ReadLock(sc.Root + "/rw")
	if err != nil {
		return nil, err
	}
	w, err := rws.WriteLock(sc.Root + "/rw")
	if err != nil {
		return nil, err
	}
	read := lockCycle(r, g, writerWeight-1, 1)
	write := lockCycle(w, g, writerWeight, writerWeight)
	return func(ctx context.Context) error {
		if rand.IntN(100) < sc.ReadPercent {
			return read(ctx)
		}
		return write(ctx)
	}, nil
}

// runLoops runs one worker per session looping its cycle; counts per worker over the window.
func runLoops(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, sc.Sessions)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	cycles, g, err := buildCycles(ss, sc)
	if err != nil {
		return Result{}, err
	}
	counts, w := make([]atomic.Int64, len(cycles)), newWorkers(ctx)
	for i, c := range cycles {
		w.start(func(ctx context.Context) error {
			if err := c(ctx); err != nil {
				return err
			}
			counts[i].Add(1)
			return nil
		})
	}
	before, after, secs, cpu := w.window(sc.Warmup, sc.Duration, counts)
	if err := w.stop(ss); err != nil {
		return Result{}, err
	}
	per := make([]int64, len(counts))
	var total int64
	for i := range per {
		per[i] = after[i] - before[i]
		total += per[i]
	}
	lo, hi := minMax(per)
	return Result{Sessions: sc.Sessions, Cycles: total, TotalCycles: sumCounts(counts), Seconds: secs,
		CyclesPerSec: float64(total) / secs,
		MinPerClient: lo, MaxPerClient: hi, Violations: g.violations.Load(),
		CPUUsPerOp: float64(cpu) / 1e3 / float64(max(total, 1)), Extra: w.allocs.perOp(total)}, nil
}

// workers runs loop bodies until stopped, remembering the first error.
type workers struct {
	ctx     context.Context
	stopped atomic.Bool
	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
	failed  chan struct{}
	live    atomic.Int64 // loop goroutines still running
	allocs0 allocs       // at the start of the window
	allocs  allocs       // over the window
}

func newWorkers(ctx context.Context) *workers {
	return &workers{ctx: ctx, failed: make(chan struct{})}
}

func (w *workers) start(body func(ctx context.Context) error) {
	w.wg.Add(1)
	w.live.Add(1)
	go func() {
		defer w.wg.Done()
		defer w.live.Add(-1)
		for !w.stopped.Load() && w.ctx.Err() == nil {
			if err := body(w.ctx); err != nil {
				if !w.stopped.Load() {
					w.errOnce.Do(func() { w.err = err; close(w.failed) })
				}
				return
			}
		}
	}()
}

// window waits out warmup, then snapshots counts at the start and end of the timed window.
// It returns early (with what it has) when a worker fails or ctx ends.
func (w *workers) window(warmup, d time.Duration, counts []atomic.Int64) (before, after []int64, secs float64, cpuNs int64) {
	w.pause(warmup)
	snap := func() []int64 {
		s := make([]int64, len(counts))
		for i := range counts {
			s[i] = counts[i].Load()
		}
		return s
	}
	before, cpu0, t0 := snap(), cpuTime(), time.Now()
	w.allocs0 = readAllocs()
	w.pause(d)
	after, secs = snap(), time.Since(t0).Seconds()
	w.allocs = readAllocs().minus(w.allocs0)
	return before, after, secs, int64(cpuTime() - cpu0)
}

// pause sleeps d (a measurement interval, not synchronisation) unless a worker fails or ctx ends.
func (w *workers) pause(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.failed:
	case <-w.ctx.Done():
	}
}

// stop tells the workers to finish their cycle and waits; queued acquirers drain in turn. If they
// have not drained after 30 s the sessions are closed to unblock them.
func (w *workers) stop(ss []Session) error {
	w.stopped.Store(true)
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		closeAll(ss)
		<-done
	}
	if w.err != nil {
		return w.err
	}
	return w.ctx.Err()
}

// sumCounts is the sum of every worker's count (call after the workers stopped).
func sumCounts(counts []atomic.Int64) int64 {
	var n int64
	for i := range counts {
		n += counts[i].Load()
	}
	return n
}

// abort stops the workers without letting the queue drain: it closes the sessions at once, which
// fails every blocked Acquire (draining thousands of queued waiters one by one would take minutes).
//
// go-zookeeper v1.0.4's zk.Lock can miss the close: a GetW whose reply races with Close registers
// its watch after the watches were invalidated, and Lock then waits on it for ever. abort
// therefore waits at most abortWait and abandons such acquirers (their goroutines stay blocked;
// the count is returned).
func (w *workers) abort(ss []Session) (abandoned int, err error) {
	w.stopped.Store(true)
	closeAll(ss)
	done := make(chan struct{})
	go func() { w.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(abortWait):
		return int(w.live.Load()), nil
	}
	if w.err != nil {
		return 0, w.err
	}
	return 0, w.ctx.Err()
}

// abortWait bounds how long abort waits for blocked acquirers after closing their sessions.
const abortWait = 10 * time.Second
