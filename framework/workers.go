package framework

import (
	"sync"
	"sync/atomic"
	"time"
)

// A request under a context that can end runs on a goroutine beside its caller (go-zookeeper
// v1.0.4 has no call a context can end), and so does each burst of an acquire loop. Starting a
// goroutine for each is client CPU taken from the server on a small machine (issue 27): the start
// itself, and the new goroutine's stack growing again (2 KiB, then 4, 8, 16 KiB, each a copy) in
// go-zookeeper's request path. The process keeps the goroutines that have finished such work warm
// for a short time instead, and hands the next piece of work to one of them. The pool is one per
// process, not per Framework, so that parked workers stay a small constant however many sessions
// a process has (e's depth rows spread 10,000 waiters over 100 sessions).

const (
	// workerIdle is how long a warm goroutine waits for work: it ends after one to two of these.
	workerIdle = 500 * time.Millisecond
	// maxIdleWorkers bounds the goroutines kept warm in the process: one that finishes its work
	// with as many idle already ends.
	maxIdleWorkers = 16
)

// workers is a pool of warm goroutines; the process has one (sharedWorkers). The idle ones form a stack (the most recent on
// top), so those at the bottom are the ones idle longest: a sweep every workerIdle ends those that
// stayed idle since the previous sweep, whose number is the smallest height the stack had.
type workers struct {
	mu    sync.Mutex
	idle  []chan func() // each idle worker's hand-off channel (buffered 1); nil ends it
	low   int           // the smallest len(idle) since the last sweep
	sweep *time.Timer   // armed while any worker is idle
	armed bool
	alive atomic.Int32 // the workers started and not ended, idle or busy (for tests)
}

// sharedWorkers is the process's pool, shared by every Framework.
var sharedWorkers workers

// Go runs fn on a warm goroutine that has finished such work before when there is one, else on a
// new one. It is for work beside a caller that must be able to leave at once (a request under a
// context that can end, a burst of them); fn must not block forever, since its goroutine ends only
// once fn returns. Warm goroutines are the process's, not f's: they end after a short idle time
// (0.5 to 1 s), whether or not f is closed.
func (f *Framework) Go(fn func()) { sharedWorkers.run(fn) }

// run hands fn to the top idle worker, or starts one.
func (p *workers) run(fn func()) {
	p.mu.Lock()
	if n := len(p.idle) - 1; n >= 0 {
		w := p.idle[n]
		p.idle[n] = nil
		p.idle = p.idle[:n]
		p.low = min(p.low, n)
		p.mu.Unlock()
		w <- fn // buffered, and its worker is idle: never blocks
		return
	}
	p.mu.Unlock()
	p.alive.Add(1)
	go p.work(fn)
}

// work runs fn, then each piece of work handed to it while it stays in the pool.
func (p *workers) work(fn func()) {
	defer p.alive.Add(-1)
	var w chan func()
	for fn != nil {
		fn()
		fn = nil // keep nothing of the work done alive while idle
		if w == nil {
			w = make(chan func(), 1)
		}
		if !p.park(w) {
			return
		}
		fn = <-w
	}
}

// park puts an idle worker's channel on the stack, unless the pool is full.
func (p *workers) park(w chan func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdleWorkers {
		return false
	}
	p.idle = append(p.idle, w)
	if !p.armed {
		p.armed, p.low = true, len(p.idle)
		if p.sweep == nil {
			p.sweep = time.AfterFunc(workerIdle, p.sweepIdle)
		} else {
			p.sweep.Reset(workerIdle)
		}
	}
	return true
}

// sweepIdle ends the workers idle since the last sweep, and rearms while any stays idle.
func (p *workers) sweepIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dismiss(p.low)
	p.low = len(p.idle)
	p.armed = len(p.idle) > 0
	if p.armed {
		p.sweep.Reset(workerIdle)
	}
}

// dismiss ends the n workers at the bottom of the stack (all of them, when fewer are idle).
func (p *workers) dismiss(n int) {
	n = min(n, len(p.idle))
	for _, w := range p.idle[:n] {
		w <- nil
	}
	rest := copy(p.idle, p.idle[n:])
	clear(p.idle[rest:])
	p.idle = p.idle[:rest]
}
