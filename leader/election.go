package leader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// releaseWait bounds how long a term's own goroutine waits for the delete of its node after
// the term ended on a live connection; past it the framework's guaranteed delete goes on in
// the background. A healthy round trip takes milliseconds.
const releaseWait = 5 * time.Second

// election is what a latch and a selector share: the lock they contend through, the life
// cycle, the current term, and the one worker goroutine that contends.
type election struct {
	fw   *framework.Framework
	lock *recipes.Lock
	id   string

	mu      sync.Mutex
	state   State
	term    *Term         // the current term, nil while not leading
	changed chan struct{} // closed and replaced at every change of state, term or worker
	ctx     context.Context
	cancel  context.CancelFunc
	worker  chan struct{} // closed when the running worker ends; nil while none runs
	stopErr error         // why the last worker stopped by itself, if it did
	states  chan struct{} // closed and replaced at every connection-state change
	unwatch func()        // removes the connection-state listener
}

// newElection builds the lock of path with drv and opts; the node's data is data unless nil
// (then the framework's default data). A latch passes its id even when empty: Curator stores
// empty data.
func newElection(fw *framework.Framework, path, id string, drv driver.Driver, data []byte, opts ...recipes.LockOption) (*election, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if data != nil {
		opts = append(opts, recipes.WithNodeData(data))
	}
	lock, err := recipes.NewLock(fw, path, drv, opts...)
	if err != nil {
		return nil, fmt.Errorf("leader: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &election{fw: fw, lock: lock, id: id, changed: make(chan struct{}), ctx: ctx, cancel: cancel,
		states: make(chan struct{})}, nil
}

// onState wakes a paused worker at every connection-state change; it runs on the framework's
// listener goroutine and never blocks.
func (e *election) onState(framework.ConnectionState) {
	e.mu.Lock()
	defer e.mu.Unlock()
	close(e.states)
	e.states = make(chan struct{})
}

// stateChange returns a channel that closes at the next connection-state change.
func (e *election) stateChange() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.states
}

// broadcast wakes every Await; e.mu is held.
func (e *election) broadcast() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// start moves Latent to Started.
func (e *election) start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch e.state {
	case Started:
		return ErrAlreadyStarted
	case Closed:
		return ErrClosed
	}
	e.state = Started
	e.unwatch = e.fw.AddListener(e.onState)
	e.broadcast()
	return nil
}

// spawn runs work on the worker goroutine unless one runs already or the election is not
// started; it reports whether it started one.
func (e *election) spawn(work func(ctx context.Context)) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.startedLocked(); err != nil {
		return false, err
	}
	if e.worker != nil {
		return false, nil
	}
	done := make(chan struct{})
	e.worker, e.stopErr = done, nil
	go func() {
		defer e.workerDone(done)
		work(e.ctx)
	}()
	return true, nil
}

// workerDone marks the worker finished.
func (e *election) workerDone(done chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	close(done)
	e.worker = nil
	e.broadcast()
}

// startedLocked returns the error of a call that needs a started election; e.mu is held.
func (e *election) startedLocked() error {
	switch e.state {
	case Latent:
		return ErrNotStarted
	case Closed:
		return ErrClosed
	}
	return nil
}

// setTerm records the current term (nil: none) and reports whether leadership flipped.
func (e *election) setTerm(t *Term) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	was := e.term != nil
	e.term = t
	e.broadcast()
	return was != (t != nil)
}

// current returns the live term, or nil.
func (e *election) current() *Term {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.state != Started || e.term == nil || e.term.Err() != nil {
		return nil
	}
	return e.term
}

// await blocks until a term is live and returns it; see LeaderLatch.Await.
func (e *election) await(ctx context.Context) (*Term, error) {
	if ctx == nil {
		return nil, framework.ErrNilContext
	}
	for {
		e.mu.Lock()
		err, t, ch, worker := e.startedLocked(), e.term, e.changed, e.worker
		stopped := e.stopErr
		e.mu.Unlock()
		switch {
		case err != nil:
			return nil, err
		case t != nil && t.Err() == nil:
			return t, nil
		case worker == nil && stopped != nil:
			return nil, fmt.Errorf("%w: %w", ErrStopped, stopped)
		}
		select { // a term that ended is replaced (by nil or the next term) through ch
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// close moves Started to Closed, ends the current term with ErrClosed, cancels the worker
// and waits for it, bounded by ctx.
func (e *election) close(ctx context.Context, before func()) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	e.mu.Lock()
	if err := e.startedLocked(); err != nil {
		e.mu.Unlock()
		return err
	}
	if before != nil {
		before()
	}
	e.state = Closed
	worker, t, unwatch := e.worker, e.term, e.unwatch
	e.broadcast()
	e.mu.Unlock()
	unwatch()
	if t != nil {
		t.end(ErrClosed)
	}
	e.cancel()
	if worker == nil {
		return nil
	}
	select {
	case <-worker:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("leader: close %s: the election goroutine is still running (its node goes when it ends): %w", e.lock.Path(), ctx.Err())
	}
}

// stopped records why the worker stops by itself.
func (e *election) stopped(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopErr = err
}

// pause decides what a failed acquire does: false to stop (ctx ended or the framework
// closed); true to try again once the connection state has changed since the attempt began
// (changed, from stateChange) and the framework is connected. A failure on a steady connection
// would only repeat: Curator likewise stays nodeless until the next reconnect.
func (e *election) pause(ctx context.Context, changed <-chan struct{}, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, framework.ErrClosed) || errors.Is(err, driver.ErrKeyOrder) {
		e.stopped(err) // closed, or another recipe owns the path (recipes.ErrMixedRecipes): never lead
		return false
	}
	e.fw.Logger().Warn("leader: could not enter the election; trying again after the next reconnect",
		"path", e.lock.Path(), "err", err)
	select {
	case <-changed:
	case <-ctx.Done():
		return false
	}
	if err := e.fw.WaitConnected(ctx); err != nil {
		if errors.Is(err, framework.ErrClosed) {
			e.stopped(err)
		}
		return false
	}
	return true
}

// release deletes the node of a term that ended, on the caller's goroutine and bounded by
// releaseWait (a fresh context: the election's own may be cancelled). A term that was lost
// kept its node (while the session lives, up to the lock's loss grace) until now, when its work
// has stopped: its Release returns at once and the delete goes on in the background.
func (e *election) release(lease *recipes.Lease) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseWait)
	defer cancel()
	if err := lease.Release(ctx); err != nil {
		e.fw.Logger().Debug("leader: release continues in the background", "path", lease.Path(), "err", err)
	}
}

// participants lists the candidates in election order.
func (e *election) participants(ctx context.Context) ([]Participant, error) {
	if ctx == nil {
		return nil, framework.ErrNilContext
	}
	return participants(ctx, e.lock)
}

// leader returns the first candidate, or the zero Participant.
func (e *election) leader(ctx context.Context) (Participant, error) {
	if ctx == nil {
		return Participant{}, framework.ErrNilContext
	}
	return leaderOf(ctx, e.lock)
}
