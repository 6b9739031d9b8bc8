package harness

import (
	"context"
	"fmt"
	"time"
)

// runDepthLimit: one session, one acquirer on Root/lock, where the driver has already created
// Waiters nodes that sort after any node a peer creates now. The acquirer's listing carries all of
// them, so this finds the queue length at which a peer's listing breaks. Acquire is bounded by
// Budget; success is one acquire and release.
func runDepthLimit(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, 1)
	if err != nil {
		return Result{}, err
	}
	l, err := ss[0].Mutex(sc.Root + "/lock")
	if err != nil {
		closeAll(ss)
		return Result{}, err
	}
	actx, cancel := context.WithTimeout(ctx, sc.Budget)
	defer cancel()
	done := make(chan error, 1)
	t0 := time.Now()
	go func() {
		err := l.Acquire(actx)
		if err == nil {
			err = l.Release(ctx)
		}
		done <- err
	}()
	res := Result{Sessions: 1, Waiters: sc.Waiters, Extra: map[string]float64{}}
	select {
	case err = <-done:
	case <-actx.Done(): // zk.Lock ignores ctx: closing its session must end the acquire
		err = fmt.Errorf("harness: no acquisition within %v behind %d nodes", sc.Budget, sc.Waiters)
	}
	res.Extra["acquire_ms"] = float64(time.Since(t0)) / float64(time.Millisecond)
	closeAll(ss)
	if err != nil {
		select {
		case <-done:
		case <-time.After(abortWait):
			res.Extra["abandoned_acquirers"] = 1
		}
		return res, err
	}
	res.Cycles, res.TotalCycles = 1, 1
	return res, nil
}
