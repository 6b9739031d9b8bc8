package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Count returns the last count this SharedCount saw (Curator's getCount): from Start and the
// watch while started, from its own Get, TrySet and Set (of a node that exists: a Set that
// creates the node is seen through the watch); the seed (or 0) before any. It does no I/O.
func (c *SharedCount) Count() int32 { return c.VersionedValue().Value }

// VersionedValue returns the last count seen with its node's version (Curator's
// getVersionedValue), for TrySetCount. Before any read the version is -1. It does no I/O.
func (c *SharedCount) VersionedValue() VersionedValue {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.VersionedValue
}

// saw records s if it is later than the state seen.
func (c *SharedCount) saw(s countState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur.Version < 0 || s.newer(c.cur) {
		c.cur = s
	}
}

// AddListener calls fn with the new count on every change that the started SharedCount sees
// (Curator's countHasChanged): another client's and its own, in order; changes close together
// may reach fn as one. fn runs on the SharedCount's one goroutine: it must not block for long,
// nor call Close (which waits for that goroutine). Connection states come from the framework's
// AddListener. remove stops the calls; it is idempotent.
func (c *SharedCount) AddListener(fn func(newCount int32)) (remove func()) {
	if fn == nil {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lis == nil {
		c.lis = make(map[int]func(int32))
	}
	id := c.nextLis
	c.nextLis++
	c.lis[id] = fn
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.lis, id)
	}
}

// Start reads the count, creating the node with the seed when it is missing (WithSeed; without
// one a missing node fails with an error wrapping framework.ErrNoNode), and keeps it up to date
// through one data watch, on a goroutine of its own, until Close. ctx bounds the first read
// only. A second Start, or one after Close, is ErrInvalidArgument. If the node is deleted later,
// the count keeps its last value and an exists watch waits for the node to come back.
func (c *SharedCount) Start(ctx context.Context) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	if c.run != nil || c.closed {
		c.mu.Unlock()
		return fmt.Errorf("%w: shared count %s is already started or closed", ErrInvalidArgument, c.path)
	}
	cw := newCountWatch(c)
	c.run = cw
	c.mu.Unlock()
	if _, err := c.read(ctx); err != nil { // create with the seed if needed
		c.mu.Lock()
		c.run = nil
		c.mu.Unlock()
		return err
	}
	s, w, err := cw.refresh(ctx)
	if err != nil {
		c.mu.Lock()
		c.run = nil
		c.mu.Unlock()
		return fmt.Errorf("recipes: shared count %s: %w", c.path, err)
	}
	c.saw(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed { // Close came meanwhile: it did not wait for a loop that never started
		cw.cancel()
		return fmt.Errorf("recipes: shared count %s: %w", c.path, framework.ErrClosed)
	}
	cw.start(s, w)
	return nil
}

// Close stops the watch goroutine and the listeners, and waits for the goroutine (so a
// listener must not call it). go-zookeeper cannot remove a watch: the one data watch stays, on
// the client and the server, until the node next changes or the session ends (an exists watch,
// if the node was deleted, until it is created). Idempotent; always returns nil.
func (c *SharedCount) Close() error {
	c.mu.Lock()
	cw := c.run
	c.closed = true
	c.lis = nil
	c.mu.Unlock()
	if cw != nil {
		cw.stop()
	}
	return nil
}

// listeners returns the listeners to call now.
func (c *SharedCount) listeners() []func(int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fns := make([]func(int32), 0, len(c.lis))
	for _, fn := range c.lis {
		fns = append(fns, fn)
	}
	return fns
}

// errCountGone says that the count's node does not exist: an exists watch waits for it.
var errCountGone = errors.New("the count's node does not exist")

// countWatch is the goroutine of a started SharedCount.
type countWatch struct {
	c        *SharedCount
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	wake     chan struct{} // a connection state changed: try again after an error
	unlisten func()
	notified countState // the last state the listeners heard of
}

func newCountWatch(c *SharedCount) *countWatch {
	ctx, cancel := context.WithCancel(context.Background())
	return &countWatch{c: c, ctx: ctx, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// start runs the loop from s, read with watch w. The SharedCount's mutex is held, so that Close
// sees either a started loop or none.
func (cw *countWatch) start(s countState, w *framework.Watch) {
	cw.notified = s
	cw.unlisten = cw.c.fw.AddListener(func(framework.ConnectionState) {
		select {
		case cw.wake <- struct{}{}:
		default:
		}
	})
	go cw.loop(w)
}

// stop ends the loop and waits for it, if it was started.
func (cw *countWatch) stop() {
	cw.cancel()
	if cw.unlisten != nil {
		<-cw.done
		cw.unlisten()
	}
}

// loop waits for the watch to fire, reads the count again with a new watch, and tells the
// listeners, until stop. After an error (NoAuth once another client removed READ, a partition
// that outlasted the retry policy) it reads again after the retry policy's delay, or at the
// next connection state change if that comes first, warning once per streak: so the count
// never stops following the node silently, nor spins.
func (cw *countWatch) loop(w *framework.Watch) {
	defer close(cw.done)
	rw := newRewatch(cw.c.fw.Logger(), cw.c.fw.RetryPolicy(), "the shared count", cw.c.path)
	rw.wake = cw.wake
	for {
		if w != nil {
			if _, err := w.Wait(cw.ctx); cw.ctx.Err() != nil {
				return
			} else if err != nil && !errors.Is(err, framework.ErrSessionInterrupted) {
				cw.c.fw.Logger().Warn("recipes: shared count watch", "path", cw.c.path, "err", err)
			}
		}
		s, nw, err := cw.refresh(cw.ctx)
		switch {
		case cw.ctx.Err() != nil:
			return
		case err != nil && nw == nil: // no watch set: read again at the policy's pace
			if !rw.failed(cw.ctx, err) {
				return
			}
		case err == nil:
			rw.ok()
			cw.c.saw(s)
			cw.notify(s)
		case errors.Is(err, errCountGone):
			rw.ok()
		default: // the data is no count: wait for the next change
			rw.ok()
			cw.c.fw.Logger().Warn("recipes: shared count holds no count", "path", cw.c.path, "err", err)
		}
		w = nw
	}
}

// refresh reads the count with a data watch; a missing node sets an exists watch instead and
// returns errCountGone with it (or reads the node, if it came back meanwhile).
func (cw *countWatch) refresh(ctx context.Context) (countState, *framework.Watch, error) {
	for {
		data, st, w, err := cw.c.fw.GetW(ctx, cw.c.path)
		if err == nil {
			s, err := decodeCountState(cw.c.path, data, st)
			return s, w, err
		}
		if !errors.Is(err, framework.ErrNoNode) {
			return countState{}, nil, err
		}
		st, w, err = cw.c.fw.ExistsW(ctx, cw.c.path)
		switch {
		case err != nil:
			return countState{}, nil, err
		case st == nil:
			return countState{}, w, errCountGone
		}
	}
}

// notify tells the listeners of s if it is later than what they last heard.
func (cw *countWatch) notify(s countState) {
	if !s.newer(cw.notified) {
		return
	}
	cw.notified = s
	for _, fn := range cw.c.listeners() {
		fn(s.Value)
	}
}
