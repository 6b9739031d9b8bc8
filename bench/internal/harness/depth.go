package harness

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// depthRun is one depth scenario in progress: D+1 lockers over the sessions, each acquiring
// once; the driver (this goroutine) orders the measured releases, then lets the queue drain.
type depthRun struct {
	sc       Scenario
	base     time.Time
	acqAt    []atomic.Int64 // ns since base when worker i's Acquire returned
	relAt    []atomic.Int64 // ns since base just before worker i's Release
	acquired chan int
	release  []chan struct{}
	drain    chan struct{} // closed: every holder releases as soon as it acquires
	errc     chan error
	g        guard
	wg       sync.WaitGroup
	live     atomic.Int64 // workers not yet returned
}

// worker acquires once, reports, waits for its release order (or the drain), and releases.
func (r *depthRun) worker(ctx context.Context, i int, l Locker) {
	defer r.wg.Done()
	defer r.live.Add(-1)
	if err := l.Acquire(ctx); err != nil {
		r.errc <- fmt.Errorf("acquirer %d: %w", i, err)
		return
	}
	r.g.enter(1, 1)
	r.acqAt[i].Store(int64(time.Since(r.base)))
	r.acquired <- i
	select {
	case <-r.release[i]:
	case <-r.drain:
	}
	r.relAt[i].Store(int64(time.Since(r.base)))
	r.g.leave(1)
	if err := l.Release(ctx); err != nil {
		r.errc <- fmt.Errorf("release %d: %w", i, err)
	}
}

// runDepth: one holder and Waiters waiters, spread round-robin over Sessions sessions, queue on
// one path. Once the queue is full (bounded by Budget) the client memory per waiter is measured;
// then Releases single releases are timed (release → the next acquire returning, the releaser
// does not queue again) and the rest of the queue drains on its own, bounded by Budget again.
func runDepth(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, min(sc.Sessions, sc.Waiters+1))
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	obs, err := observe(ctx, servers)
	if err != nil {
		return Result{}, err
	}
	defer obs.Close()
	n, path := sc.Waiters+1, sc.Root+"/lock"
	r := &depthRun{sc: sc, base: time.Now(), acqAt: make([]atomic.Int64, n), relAt: make([]atomic.Int64, n),
		acquired: make(chan int, n), release: make([]chan struct{}, n), drain: make(chan struct{}), errc: make(chan error, n)}
	lockers := make([]Locker, n)
	for i := range lockers {
		if lockers[i], err = ss[i%len(ss)].Mutex(path); err != nil {
			return Result{}, err
		}
		r.release[i] = make(chan struct{}, 1)
	}
	stopGuard := r.guardMemory(ss, obs, path)
	res, err := r.drive(ctx, obs, path, lockers)
	if gerr := stopGuard(); gerr != nil {
		err = gerr
	}
	if err != nil || res.Extra["drained"] < float64(n) {
		res.Extra["abandoned_acquirers"] = float64(r.abort(ss))
		return res, err
	}
	if !r.wait(30 * time.Second) {
		return res, fmt.Errorf("harness: %d acquirers did not return after the drain", r.live.Load())
	}
	return res, nil
}

// drive runs the phases: hold, fill, measure memory, timed releases, drain.
func (r *depthRun) drive(ctx context.Context, obs *zk.Conn, path string, ls []Locker) (Result, error) {
	sc, n := r.sc, len(ls)
	res := Result{Sessions: sc.Sessions, Waiters: sc.Waiters, Extra: map[string]float64{}}
	r.start(ctx, 0, ls[0])
	if _, err := r.next(ctx, 60*time.Second); err != nil {
		return res, err
	}
	heap0, gor0 := clientMemory()
	t0 := time.Now()
	for i := 1; i < n; i++ {
		r.start(ctx, i, ls[i])
	}
	if err := r.waitFilled(ctx, obs, path, n, t0); err != nil {
		return res, err
	}
	res.Extra["fill_s"] = time.Since(t0).Seconds()
	sc.mark(ctx, "filled") // the driver waits for the server's watches to settle and counts them
	heap, gor := clientMemory()
	res.MemPerWaiter = float64(int64(heap)-int64(heap0)) / float64(sc.Waiters)
	res.GoroutinesPerWaiter = float64(gor-gor0-int64(sc.Waiters)) / float64(sc.Waiters)
	k := min(sc.Releases, sc.Waiters)
	sc.mark(ctx, "start")
	handoffs, holder, cpu, err := r.timedReleases(ctx, k)
	sc.mark(ctx, "end")
	if err != nil {
		return res, err
	}
	res.Cycles, res.HandoffP50Ms, res.P99Ms = int64(k), percentileMs(handoffs, 0.5), percentileMs(handoffs, 0.99)
	res.CPUUsPerOp = float64(cpu) / 1e3 / float64(k)
	drained, last := r.drainAll(ctx, k+1, n, time.Duration(r.acqAt[holder].Load()))
	res.TotalCycles, res.Extra["drained"] = int64(drained), float64(drained)
	res.Violations = r.g.violations.Load()
	if drained < n { // not a failure: the table shows how far the drain got within the bound
		res.Extra["drain_bound_s"] = sc.DrainBudget.Seconds()
		return res, nil
	}
	res.DrainSeconds = (last - time.Duration(r.relAt[0].Load())).Seconds()
	return res, nil
}

// waitFilled waits until path has n children (bounded by the budget) or an acquirer fails.
func (r *depthRun) waitFilled(ctx context.Context, obs *zk.Conn, path string, n int, t0 time.Time) error {
	deadline := t0.Add(r.sc.Budget)
	for {
		have := numChildren(obs, path)
		if have >= n {
			return nil
		}

		select {
		case err := <-r.errc:
			return fmt.Errorf("harness: while %d of %d queued: %w", have, n, err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond): // polling the queue length; no event says "full"
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w within %v: %s has %d children, want %d", errQueueTimeout, r.sc.Budget, path, have, n)
		}
	}
}

// timedReleases orders k single releases, each timed from just before the holder's release to
// the next acquire returning; it returns the handoffs, the last holder and the process CPU they took.
func (r *depthRun) timedReleases(ctx context.Context, k int) ([]time.Duration, int, time.Duration, error) {
	holder, out := 0, make([]time.Duration, 0, k)
	c0, until := cpuTime(), time.Now().Add(r.sc.DrainBudget)
	for i := 0; i < k; i++ {
		r.release[holder] <- struct{}{}
		next, err := r.next(ctx, time.Until(until))
		if err != nil {
			return nil, 0, 0, err
		}
		out = append(out, time.Duration(r.acqAt[next].Load()-r.relAt[holder].Load()))
		holder = next
	}
	return out, holder, cpuTime() - c0, nil
}

// drainAll lets every remaining acquirer release as soon as it acquires, and counts the
// acquisitions until all n have acquired or the budget ends; last is the last acquisition time
// (starting from the last timed one).
func (r *depthRun) drainAll(ctx context.Context, have, n int, last time.Duration) (int, time.Duration) {
	close(r.drain)
	deadline := time.Now().Add(r.sc.DrainBudget)
	for have < n {
		i, err := r.next(ctx, time.Until(deadline))
		if err != nil {
			break
		}
		last = time.Duration(r.acqAt[i].Load())
		have++
	}
	return have, last
}

// next waits (bounded by d) for the next acquisition.
func (r *depthRun) next(ctx context.Context, d time.Duration) (int, error) {
	t := time.NewTimer(max(d, time.Millisecond))
	defer t.Stop()
	select {
	case i := <-r.acquired:
		return i, nil
	case err := <-r.errc:
		return 0, err
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return 0, fmt.Errorf("harness: no acquisition within %v", d)
	}
}

// start runs worker i.
func (r *depthRun) start(ctx context.Context, i int, l Locker) {
	r.wg.Add(1)
	r.live.Add(1)
	go r.worker(ctx, i, l)
}

// wait waits up to d for every worker to return.
func (r *depthRun) wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// abort closes the sessions, which fails every blocked acquirer, and waits up to abortWait for
// the workers; it returns how many it had to abandon (go-zookeeper's zk.Lock can miss the close).
func (r *depthRun) abort(ss []Session) int {
	closeAll(ss)
	if r.wait(abortWait) {
		return 0
	}
	return int(r.live.Load())
}

// guardMemory watches this process's heap while the scenario runs; past heapGuard it records
// why, with how many waiters were queued, and closes the sessions (every acquirer then fails).
// The returned stop function ends the watch and returns that error, or nil.
func (r *depthRun) guardMemory(ss []Session, obs *zk.Conn, path string) func() error {
	done, stopped := make(chan struct{}), make(chan error, 1)
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				stopped <- nil
				return
			case <-t.C:
			}
			if h := heapObjects(); h > heapGuard {
				q := numChildren(obs, path)
				err := fmt.Errorf("%w: client heap %d MiB over the %d MiB guard with %d nodes queued (%.0f KB per queued node)",
					ErrClientMemory, h>>20, uint64(heapGuard)>>20, q, float64(h)/1024/float64(max(q, 1)))
				closeAll(ss)
				<-done
				stopped <- err
				return
			}
		}
	}()
	return func() error { close(done); return <-stopped }
}
