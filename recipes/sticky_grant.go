package recipes

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
)

// local grants an Acquire (or TryAcquire) of drv from the slot when it can. It reports ok false
// when the caller must take the normal way (no slot, a slot that cannot be granted, a slot a
// local reader holds, or a waiter sent away because a conflicting contender was seen); with ok
// true it returns the lease, or the error that ends the acquire (ctx ended while waiting, or a
// TryAcquire that finds the slot held by another local lease: ErrSelfLocked).
func (c *stickyCache) local(ctx context.Context, drv driver.Driver, try bool) (*Lease, bool, error) {
	if c == nil || drv != c.lock.drv {
		return nil, false, nil
	}
	yieldBeforeLocalGrant()
	c.mu.Lock()
	s := c.slot
	if s == nil {
		c.mu.Unlock()
		return nil, false, nil
	}
	switch {
	case s.state == slotIdle && s.grantable():
		l := c.localLease(s)
		c.mu.Unlock()
		return l, true, nil
	case s.state == slotIdle && !s.recheckable():
		c.end(s, s.session.Err() == nil) // a conflicting contender came (wasted), or its epoch ended: it goes
		c.mu.Unlock()
		c.dropInBackground(s.path)
		return nil, false, nil
	case s.state == slotIdle:
		s.state = slotChecking // a disconnect, or a change of a shared lock: list afresh first
		go s.recheck()
	case s.state == slotHeld && (c.shared || s.conflict):
		c.mu.Unlock()
		return nil, false, nil // a second reader takes a node of its own beside ours; after a conflict, queue behind it
	case s.state == slotHeld && try:
		c.mu.Unlock()
		return nil, true, selfHold{node: s.name, kind: selfSame}.lockedError(c.lock.path)
	}
	w := make(chan *Lease, 1)
	s.waiters = append(s.waiters, w)
	c.mu.Unlock()
	return c.await(ctx, s, w)
}

// yieldBeforeLocalGrant lets the process's other runnable goroutines run before a local grant is
// considered. A local grant makes no request and so never blocks: without it a goroutine looping
// on Acquire and Release of an idle sticky node would run until the runtime preempts it (a 10 ms
// slice), and with more such loops than Ps every other goroutine (the connection's reader, the
// watch dispatch that tells the slot a conflicting contender queued, the contender's own steps
// when it is in this process) would wait a slice per loop ahead of it, at every step (issue 28,
// s5). Yielding first also lets a pending event handler end the slot before the grant's checks.
// It costs about 0.2-0.3 µs when nothing else is runnable (a local grant: 3 to 5 µs).
func yieldBeforeLocalGrant() { runtime.Gosched() }

// await waits, in the slot's FIFO queue, for the slot to be handed over (a lease) or for the
// sign to take the normal way (nil).
func (c *stickyCache) await(ctx context.Context, s *slot, w chan *Lease) (*Lease, bool, error) {
	select {
	case l := <-w:
		return l, l != nil, nil
	case <-ctx.Done():
	}
	c.mu.Lock()
	for i, q := range s.waiters {
		if q == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			c.mu.Unlock()
			return nil, true, ctx.Err()
		}
	}
	c.mu.Unlock()
	if l := <-w; l != nil { // handed over as ctx ended: give it back, to the next waiter or idle
		l.discard(context.Background())
	}
	return nil, true, ctx.Err()
}

// stickyGranted finishes an acquire that the sticky cache answered: a local grant (err nil),
// reported and made revocable as any grant, or the error that ended the acquire.
func (l *Lock) stickyGranted(lease *Lease, err error, start time.Time) (*Lease, error) {
	if err != nil {
		return nil, fmt.Errorf("recipes: acquire %s: %w", l.path, err)
	}
	l.event(eventAcquired, lease.path, time.Since(start), nil)
	if l.opts.revoke != nil {
		go watchRevocation(lease, l.opts.revoke)
	}
	return lease, nil
}
