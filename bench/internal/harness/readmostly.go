package harness

import (
	"context"
	"sync/atomic"
	"time"
)

// writerLoop is the one writer of runReadMostly: after each pause of interval it times one
// write-lock acquire, checks the holders, and releases. Its acquires inside the window are kept.
type writerLoop struct {
	l         Locker
	g         *guard
	interval  time.Duration
	measuring atomic.Bool
	count     atomic.Int64
	lat       []time.Duration // acquires in the window (read after the workers stopped)
	done      <-chan struct{}
}

func (w *writerLoop) cycle(ctx context.Context) error {
	t := time.NewTimer(w.interval) // the writer's pace: a measured interval, not synchronisation
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return nil
	case <-w.done:
		t.Stop()
		return nil
	}
	in, t0 := w.measuring.Load(), time.Now()
	if err := w.l.Acquire(ctx); err != nil {
		return err
	}
	d := time.Since(t0)
	w.g.enter(writerWeight, writerWeight)
	w.g.leave(writerWeight)
	if in {
		w.lat = append(w.lat, d)
	}
	w.count.Add(1)
	return w.l.Release(ctx)
}

// runReadMostly (s5): Sessions sessions loop on the read side of one read/write lock while one
// more session takes the write side once every Interval. The rate is reads per second over the
// window; P50Ms and P99Ms are the writer's acquire calls in the window (Extra "writes": how many;
// "writes_all": every write of the run, for the counting pass's figures per write).
// A writer together with anyone, or a reader together with a writer, is a violation.
func runReadMostly(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, sc.Sessions+1)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	g := &guard{}
	reads := make([]cycleFunc, sc.Sessions)
	for i := range reads {
		rws, ok := ss[i].(RWSession)
		if !ok {
			return Result{}, ErrUnsupported
		}
		r, err := rws.ReadLock(sc.Root + "/rw")
		if err != nil {
			return Result{}, err
		}
		reads[i] = lockCycle(r, g, writerWeight-1, 1)
	}
	wrs, ok := ss[sc.Sessions].(RWSession)
	if !ok {
		return Result{}, ErrUnsupported
	}
	wl, err := wrs.WriteLock(sc.Root + "/rw")
	if err != nil {
		return Result{}, err
	}
	counts, w := make([]atomic.Int64, sc.Sessions), newWorkers(ctx)
	stopWriter := make(chan struct{})
	wr := &writerLoop{l: wl, g: g, interval: sc.Interval, done: stopWriter}
	for i, c := range reads {
		w.start(func(ctx context.Context) error {
			if err := c(ctx); err != nil {
				return err
			}
			counts[i].Add(1)
			return nil
		})
	}
	w.start(wr.cycle)
	w.pause(sc.Warmup)
	wr.measuring.Store(true)
	before, after, secs, cpu := w.window(0, sc.Duration, counts)
	wr.measuring.Store(false)
	close(stopWriter)
	if err := w.stop(ss); err != nil {
		return Result{}, err
	}
	r := loopResult(sc, before, after, secs, cpu, sumCounts(counts)+wr.count.Load(), g.violations.Load(), w)
	r.P50Ms, r.P99Ms = percentileMs(wr.lat, 0.5), percentileMs(wr.lat, 0.99)
	if r.Extra == nil {
		r.Extra = map[string]float64{}
	}
	r.Extra["writes"], r.Extra["writes_all"] = float64(len(wr.lat)), float64(wr.count.Load())
	return r, nil
}
