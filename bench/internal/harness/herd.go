package harness

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// errQueueTimeout: the lock queue never reached the expected length.
var errQueueTimeout = errors.New("harness: lock queue did not fill")

// herdState is shared by the herd workers and the driver.
type herdState struct {
	base     time.Time
	acqAt    []atomic.Int64 // ns since base when worker i's Acquire returned
	relAt    []atomic.Int64 // ns since base just before worker i's Release
	acquired chan int
	total    atomic.Int64 // every acquisition, drain included
	release  []chan struct{}
	quit     chan struct{}
	errc     chan error
	wg       sync.WaitGroup
}

// herdWorker: acquire, report, wait for the driver's release order, release, queue again.
func (h *herdState) herdWorker(ctx context.Context, i int, l Locker) {
	defer h.wg.Done()
	for {
		if err := l.Acquire(ctx); err != nil {
			h.errc <- err
			return
		}
		h.acqAt[i].Store(int64(time.Since(h.base)))
		h.total.Add(1)
		h.acquired <- i
		quitting := false
		select {
		case <-h.release[i]:
		case <-h.quit:
			quitting = true
		}
		h.relAt[i].Store(int64(time.Since(h.base)))
		if err := l.Release(ctx); err != nil {
			h.errc <- err
			return
		}
		if quitting {
			return
		}
	}
}

// runHerd: Sessions waiters queue behind one holder; Releases single releases are timed from just
// before release() in the holder to acquire() returning in the next one (after one unmeasured).
func runHerd(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	n := sc.Sessions
	ss, err := connectAll(ctx, connect, servers, n+1)
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
	h := &herdState{base: time.Now(), acqAt: make([]atomic.Int64, n+1), relAt: make([]atomic.Int64, n+1),
		acquired: make(chan int, n+1), release: make([]chan struct{}, n+1), quit: make(chan struct{}),
		errc: make(chan error, n+1)}
	lockers := make([]Locker, n+1)
	for i := range lockers {
		if lockers[i], err = ss[i].Mutex(path); err != nil {
			return Result{}, err
		}
		h.release[i] = make(chan struct{}, 1)
	}
	handoffs, cpu, err := h.drive(ctx, obs, path, lockers, sc.Releases)
	close(h.quit)
	if werr := waitOrClose(&h.wg, ss); err == nil {
		err = werr
	}
	if err != nil {
		return Result{}, err
	}
	k := int64(len(handoffs))
	return Result{Sessions: n, Cycles: k, TotalCycles: h.total.Load(), HandoffP50Ms: percentileMs(handoffs, 0.5),
		P99Ms: percentileMs(handoffs, 0.99), CPUUsPerOp: float64(cpu) / 1e3 / float64(max(k, 1))}, nil
}

// drive starts the holder, then the waiters, then orders releases+1 single releases.
func (h *herdState) drive(ctx context.Context, obs *zk.Conn, path string, ls []Locker, releases int) ([]time.Duration, time.Duration, error) {
	h.wg.Add(1)
	go h.herdWorker(ctx, 0, ls[0])
	holder, err := h.next(ctx)
	if err != nil {
		return nil, 0, err
	}
	for i := 1; i < len(ls); i++ {
		h.wg.Add(1)
		go h.herdWorker(ctx, i, ls[i])
	}
	var out []time.Duration
	var cpu time.Duration
	for r := 0; r <= releases; r++ {
		if err := waitQueue(ctx, obs, path, len(ls)); err != nil {
			return nil, 0, err
		}
		c0 := cpuTime()
		h.release[holder] <- struct{}{}
		next, err := h.next(ctx)
		if err != nil {
			return nil, 0, err
		}
		if r > 0 { // the first release is a warm-up
			cpu += cpuTime() - c0
			out = append(out, time.Duration(h.acqAt[next].Load()-h.relAt[holder].Load()))
		}
		holder = next
	}
	return out, cpu, nil
}

// next waits (bounded) for the next worker to acquire.
func (h *herdState) next(ctx context.Context) (int, error) {
	select {
	case i := <-h.acquired:
		return i, nil
	case err := <-h.errc:
		return 0, err
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(60 * time.Second):
		return 0, fmt.Errorf("harness: no acquisition within 60 s")
	}
}

// waitOrClose waits for wg; after 30 s it closes the sessions to unblock acquirers, then waits.
func waitOrClose(wg *sync.WaitGroup, ss []Session) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
		closeAll(ss)
		<-done
		return fmt.Errorf("harness: workers did not drain within 30 s")
	}
}

// observe opens a raw session used only to look at the lock queue.
func observe(ctx context.Context, servers string) (*zk.Conn, error) {
	conn, ev, err := zk.Connect([]string{servers}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(silentLogger{}))
	if err != nil {
		return nil, err
	}
	go func() {
		for range ev { // drained until Close closes it
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) || ctx.Err() != nil {
			conn.Close()
			return nil, fmt.Errorf("harness: observer did not connect")
		}
		time.Sleep(5 * time.Millisecond) // go-zookeeper offers no connected event but the channel we drain
	}
	return conn, nil
}

// waitQueue polls (every 2 ms, bounded 60 s) until path has want children.
func waitQueue(ctx context.Context, obs *zk.Conn, path string, want int) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		kids, _, err := obs.Children(path)
		if err == nil && len(kids) >= want {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%w: %s has %d children, want %d", errQueueTimeout, path, len(kids), want)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// WaitWatchesSettled waits (bounded by d) until the server at addr holds at least want watches
// and the count has not moved for 3 polls 100 ms apart (every queued waiter has listed, decided
// and set its watch), or, short of want, has not moved for 3 s (a peer that watches less). It
// returns the last count read ("wchs"), -1 if none.
func WaitWatchesSettled(ctx context.Context, addr string, want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	last, stable := -1, 0
	for time.Now().Before(deadline) && ctx.Err() == nil {
		n := ServerWatches(ctx, addr)
		if n == last {
			stable++
		} else {
			stable = 0
		}
		last = n
		if (n >= want && stable >= 3) || stable >= 30 {
			break
		}
		time.Sleep(100 * time.Millisecond) // polling the server's count; no event says "settled"
	}
	return last
}

// ServerWatches reads the server's total watch count ("wchs"), or -1.
func ServerWatches(ctx context.Context, addr string) int {
	out, err := zktest.FourLetter(ctx, addr, "wchs")
	if err != nil {
		return -1
	}
	_, after, ok := strings.Cut(out, "Total watches:")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(after, "\n", 2)[0]))
	if err != nil {
		return -1
	}
	return n
}

// silentLogger drops go-zookeeper's log lines (closed sessions log "recv loop terminated").
type silentLogger struct{}

func (silentLogger) Printf(string, ...any) {}
