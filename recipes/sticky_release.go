package recipes

import (
	"context"
	"errors"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// release is Release's last step for a lease of the slot: it ends the lease as any release
// does, then keeps the node (idle, or handed to the next local waiter) unless a conflicting
// contender was seen, the lock was closed, or the slot ended; then it deletes the node as a
// plain release does, bounded by ctx.
func (s *slot) release(ctx context.Context, n *node) error {
	if !n.letGo() { // lost: its node goes in the background, or went with its session
		s.c.mu.Lock()
		s.c.end(s, false)
		s.c.mu.Unlock()
		return nil
	}
	if s.keep(ctx) {
		return nil
	}
	return n.deleteNow(ctx)
}

// keep decides at a release whether the slot's node stays, and if so hands it to the next local
// waiter or makes it idle. It needs the directory watch of a listing that showed our node and
// no conflicting contender: the one armDir sets at the first grant, else one it sets now (one
// read; after a handoff grant, or when armDir failed). While armDir's listing is in flight the
// release does not wait for it: the slot is being checked (no local grant; local acquirers
// wait in its queue), and armDir's verdict keeps it (idle, or handed to the first waiter) or
// ends it and deletes the node in the background (remembered: flushStale).
func (s *slot) keep(ctx context.Context) bool {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	s.holder = nil
	if s.state == slotHeld && !s.conflict && !c.closed && s.watch == nil && s.arming != nil && !s.armed {
		s.state = slotChecking // armDir settles it
		return true
	}
	if s.watch == nil && s.arming != nil {
		a := s.arming
		c.mu.Unlock()
		select {
		case <-a:
		case <-ctx.Done():
		}
		c.mu.Lock()
	}
	if s.state != slotHeld || s.conflict || c.closed {
		c.end(s, s.conflict)
		return false
	}
	if s.watch == nil {
		c.mu.Unlock()
		kids, _, w, err := c.lock.fw.ChildrenW(ctx, c.lock.path)
		c.mu.Lock()
		v := s.verdict(kids, err)
		if s.state != slotHeld || c.closed || v != listClear {
			c.end(s, v == listConflict)
			return false
		}
		s.watchDir(w)
	}
	s.settle()
	return true
}

// listVerdict is what a listing of the directory says about the slot's node.
type listVerdict uint8

const (
	listClear    listVerdict = iota // our node is listed, and no contender that conflicts with it
	listConflict                    // a conflicting contender is listed
	listMissing                     // our node is not listed (deleted, or gone with its session)
	listFailed                      // the listing failed
)

// verdict reads a listing of the directory (or its error).
func (s *slot) verdict(kids []string, err error) listVerdict {
	switch {
	case errors.Is(err, framework.ErrNoNode):
		return listMissing
	case err != nil:
		return listFailed
	}
	found := false
	for _, k := range kids {
		if k == s.name {
			found = true
			continue
		}
		if s.c.drv.Conflicts(s.name, k) {
			return listConflict
		}
	}
	if !found {
		return listMissing
	}
	return listClear
}

// watchDir makes w the slot's directory watch, and reacts when it fires. Called with c.mu held.
func (s *slot) watchDir(w *framework.Watch) {
	s.watch = w
	context.AfterFunc(w.Fired(), func() { s.fired(w) })
}

// settle puts a released slot to use: handed to the first local waiter, idle, or (its watch has
// news) listed again first; a slot that can no longer be kept ends, and its node is deleted.
// Called with c.mu held.
func (s *slot) settle() {
	c := s.c
	switch {
	case s.grantable() && len(s.waiters) > 0:
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		w <- c.localLease(s)
	case s.grantable():
		s.state = slotIdle
		s.idleSince = time.Now()
		if s.timer == nil {
			s.timer = time.AfterFunc(c.idle, s.idleOver)
		} else {
			s.timer.Reset(c.idle)
		}
	case s.recheckable():
		s.state = slotChecking
		go s.recheck()
	default:
		c.dropInBackground(s.path) // remembered before end sends the waiters the normal way (flushStale)
		c.end(s, s.session.Err() == nil)
	}
}

// idleOver ends a slot idle for the whole idle time, deleting its node. A timer of an earlier
// idle period (stopped too late) finds the slot idle for less and does nothing.
func (s *slot) idleOver() {
	c := s.c
	c.mu.Lock()
	if s.state != slotIdle || time.Since(s.idleSince) < c.idle {
		c.mu.Unlock()
		return
	}
	c.end(s, false)
	c.mu.Unlock()
	c.dropInBackground(s.path)
}
