package harness

import (
	"context"
	"sync/atomic"
)

// runDepth: Waiters acquirers spread over Sessions sessions loop on one path. Memory per waiting
// acquirer is measured while all but the first are queued; then the timed window counts
// acquisitions.
func runDepth(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, sc.Sessions)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	obs, err := observe(ctx, servers)
	if err != nil {
		return Result{}, err
	}
	defer obs.Close()
	path := sc.Root + "/lock"
	g := &guard{}
	cycles := make([]cycleFunc, sc.Waiters)
	first := make([]Locker, sc.Waiters)
	for j := range cycles {
		if first[j], err = ss[j%len(ss)].Mutex(path); err != nil {
			return Result{}, err
		}
		cycles[j] = lockCycle(first[j], g, 1, 1)
	}
	mem0 := heapInUse()
	if err := first[0].Acquire(ctx); err != nil {
		return Result{}, err
	}
	counts, w := make([]atomic.Int64, sc.Waiters), newWorkers(ctx)
	for j := 1; j < sc.Waiters; j++ {
		w.start(func(ctx context.Context) error {
			if err := cycles[j](ctx); err != nil {
				return err
			}
			counts[j].Add(1)
			return nil
		})
	}
	qerr := waitQueue(ctx, obs, path, sc.Waiters)
	if qerr == nil {
		waitWatchesSettled(ctx, servers, sc.Waiters-1)
	}
	mem := float64(heapInUse()) - float64(mem0)
	if err := first[0].Release(ctx); err != nil && qerr == nil {
		qerr = err
	}
	w.start(func(ctx context.Context) error {
		if err := cycles[0](ctx); err != nil {
			return err
		}
		counts[0].Add(1)
		return nil
	})
	if qerr != nil {
		w.stopped.Store(true)
		_ = w.stop(ss)
		return Result{}, qerr
	}
	before, after, secs, cpu := w.window(sc.Warmup, sc.Duration, counts)
	abandoned, err := w.abort(ss)
	if err != nil {
		return Result{}, err
	}
	var total int64
	per := make([]int64, len(counts))
	for i := range per {
		per[i] = after[i] - before[i]
		total += per[i]
	}
	lo, hi := minMax(per)
	return Result{Sessions: sc.Sessions, Waiters: sc.Waiters, Cycles: total, TotalCycles: sumCounts(counts) + 1, Seconds: secs,
		CyclesPerSec: float64(total) / secs, MinPerClient: lo, MaxPerClient: hi,
		Violations: g.violations.Load(), MemPerWaiter: mem / float64(max(sc.Waiters-1, 1)),
		CPUUsPerOp: float64(cpu) / 1e3 / float64(max(total, 1)),
		Extra:      map[string]float64{"abandoned_acquirers": float64(abandoned)}}, nil
}
