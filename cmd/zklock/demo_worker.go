package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// worker is one contender with its own session.
type worker struct {
	id int
	fw *framework.Framework
	d  *demo
}

func (w *worker) name() string { return fmt.Sprintf("demo-worker-%d", w.id) }

// run takes the lock rounds times; each hold writes the fenced resource.
func (w *worker) run(ctx context.Context) error {
	m, err := recipes.NewMutex(w.fw, w.d.cfg.path, recipes.WithNodeData(recipes.NewIdentity(w.name()).Encode()))
	if err != nil {
		return err
	}
	if loss := w.d.loss; loss != nil && w.id == 0 {
		defer loss.markExpired()
	}
	for r := 0; r < w.d.cfg.rounds; r++ {
		if err := w.awaitScene(ctx, r); err != nil {
			return err
		}
		lease, err := m.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("worker %d: %w", w.id, err)
		}
		leave := sync.OnceFunc(w.d.stats.released)
		err = w.hold(ctx, m, lease, r, leave)
		leave()
		if rerr := lease.Release(ctx); rerr != nil && err == nil && lease.Err() == nil {
			err = rerr
		}
		if err != nil {
			return fmt.Errorf("worker %d: %w", w.id, err)
		}
	}
	return nil
}

// hold is one critical section: enter the resource, work, leave it. Worker
// 0 loses its session in its second hold when the demo runs the loss scene.
//
// leave ends this holder's count in the process statistics.
func (w *worker) hold(ctx context.Context, m *recipes.InterProcessMutex, lease *recipes.Lease, round int, leave func()) error {
	n := w.d.stats.acquired(w.id)
	token, err := leaseToken(ctx, lease)
	if err != nil {
		return w.lost(lease)
	}
	w.d.say("worker %d holds the lock  token=%d  holders here=%d  queue: %s", w.id, token, n, w.queue(ctx, m))
	version, err := w.d.fence.enter(ctx, w.fw, lease, token, w.name())
	if err != nil {
		return w.failedWrite(lease, err)
	}
	if w.id == 0 && round == min(1, w.d.cfg.rounds-1) && w.d.loss != nil && !w.d.loss.done {
		return w.loseLock(ctx, lease, token, leave)
	}
	if w.d.cfg.work > 0 {
		select {
		case <-time.After(rand.N(w.d.cfg.work)):
		case <-lease.Done():
			return w.lost(lease)
		}
	}
	return w.failedWrite(lease, w.d.fence.exit(ctx, w.fw, lease, token, w.name(), version))
}

// awaitScene keeps the other workers' last round until worker 0's session
// was expired, so that one of them takes the lock over and writes the
// resource with a newer token.
func (w *worker) awaitScene(ctx context.Context, round int) error {
	if w.d.loss == nil || w.id == 0 || round != w.d.cfg.rounds-1 {
		return nil
	}
	select {
	case <-w.d.loss.expired:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failedWrite reports a resource write that failed: an overlap is counted
// (the verdict fails the run), a lost lock is shown, anything else is an
// error.
func (w *worker) failedWrite(lease *recipes.Lease, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errOverlap):
		w.d.say("worker %d: OVERLAP: %v", w.id, err)
		return nil
	case lease.Err() != nil:
		return w.lost(lease)
	}
	return err
}

// lost reports a lease that ended while held; the worker goes on.
func (w *worker) lost(lease *recipes.Lease) error {
	w.d.stats.lost.Add(1)
	w.d.say("worker %d: told that the lock may be lost (%v): it stops working on the resource", w.id, lease.Err())
	return nil
}

// loseLock is the loss scene: expire our session mid-hold, hear of it
// through Done, wait until another worker wrote the resource with a newer
// token, and try to write with our stale one: the resource refuses it.
func (w *worker) loseLock(ctx context.Context, lease *recipes.Lease, token int64, leave func()) error {
	w.d.loss.done = true
	w.d.say("worker %d: (scene) expiring worker %d's session on the server while it holds the lock...", w.id, w.id)
	// The worker stops working on the resource before it gives its session up, so it leaves the
	// process's holder count now: the next holder may be granted as soon as the server has
	// deleted our node, before our client hears of the expiry (ZooKeeper tells the next waiter
	// first; fencing, below, is what keeps a late write of ours out).
	leave()
	err := w.d.loss.expire(ctx)
	w.d.loss.markExpired()
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	select {
	case <-lease.Done():
		w.lost(lease)
	case <-wctx.Done():
		return errors.New("the expired session was not reported within 30s")
	}
	if err := w.d.fence.waitPast(wctx, w.d.workers[1].fw, token); err != nil {
		return fmt.Errorf("waiting for the next holder's write: %w", err)
	}
	_, err = w.d.fence.enter(ctx, w.d.workers[1].fw, nil, token, w.name()+" (stale)")
	if !errors.Is(err, errStale) {
		return fmt.Errorf("the stale write was not refused: %v", err)
	}
	w.d.say("worker %d: a late write with its old token was refused by the fenced resource: %v", w.id, err)
	return nil
}

// queue lists the lock's contenders, holder first, by name.
func (w *worker) queue(ctx context.Context, m *recipes.InterProcessMutex) string {
	if w.d.cfg.quiet {
		return ""
	}
	parts, err := m.Participants(ctx)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = participantName(p.Data)
	}
	return "[" + strings.Join(names, " ") + "]"
}

// participantName is a contender's name: ours by identity, Curator's by IP.
func participantName(data []byte) string {
	id, ok := recipes.ParseIdentity(data)
	switch {
	case ok && id.PID != pid:
		return fmt.Sprintf("%s(pid %d)", strings.TrimPrefix(id.Name, "demo-"), id.PID)
	case ok:
		return strings.TrimPrefix(id.Name, "demo-")
	case recipes.NodeOrigin(data) == recipes.OriginJava:
		return "java@" + string(data)
	}
	return fmt.Sprintf("%q", data)
}

// demoStats is what the workers share in this process.
type demoStats struct {
	holders, maxHolders atomic.Int32
	lost                atomic.Int64
	lastRelease         atomic.Int64 // unix nanos of the last release
	mu                  sync.Mutex
	handoffs            []time.Duration
	counts              []int
}

func (s *demoStats) init(workers int) { s.counts = make([]int, workers) }

// acquired counts a new holder and returns the holders in this process.
func (s *demoStats) acquired(id int) int32 {
	n := s.holders.Add(1)
	for old := s.maxHolders.Load(); n > old && !s.maxHolders.CompareAndSwap(old, n); old = s.maxHolders.Load() {
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[id]++
	if last := s.lastRelease.Load(); last != 0 {
		s.handoffs = append(s.handoffs, time.Since(time.Unix(0, last)))
	}
	return n
}

func (s *demoStats) released() {
	s.holders.Add(-1)
	s.lastRelease.Store(time.Now().UnixNano())
}

func (s *demoStats) print(w io.Writer, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(w, format+"\n", args...)
}

// medianHandoff is the median release-to-acquire delay; callers hold mu.
func (s *demoStats) medianHandoff() time.Duration {
	if len(s.handoffs) == 0 {
		return 0
	}
	h := slices.Clone(s.handoffs)
	slices.Sort(h)
	return h[len(h)/2].Round(time.Microsecond)
}
