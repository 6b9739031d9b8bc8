package recipes

import (
	"errors"

	"github.com/zkrecipes/zkrecipes/framework"
)

// fired reacts to the slot's directory watch w: a child was created or deleted (ours
// included), the directory deleted, or the watch invalidated. An idle node of a lock whose
// grants exclude each other goes at once, with no listing on the contender's path (any new
// child conflicts, and a deleted one may be ours); otherwise the directory is listed again.
func (s *slot) fired(w *framework.Watch) {
	waitStickyGate()
	c := s.c
	c.mu.Lock()
	if s.state == slotGone || s.watch != w {
		c.mu.Unlock()
		return
	}
	if s.state == slotIdle && !c.shared {
		c.end(s, true)
		c.mu.Unlock()
		c.dropInBackground(s.path)
		return
	}
	if s.state == slotIdle {
		s.state = slotChecking
	}
	c.mu.Unlock()
	s.recheck()
}

// recheck lists the directory again with a watch, and acts on what it shows: nothing that
// conflicts (watch again; a released slot settles), a conflicting contender (an idle node goes,
// a held one goes at its release, and local waiters take the normal way, behind it), or our
// node gone (the holder, if any, has lost it).
func (s *slot) recheck() {
	c := s.c
	kids, _, w, err := c.lock.fw.ChildrenW(s.ctx, c.lock.path)
	c.mu.Lock()
	if s.state == slotGone {
		c.mu.Unlock()
		return
	}
	v := s.verdict(kids, err)
	switch {
	case v == listClear:
		s.watchDir(w)
		if s.state == slotChecking {
			s.settle()
		}
		c.mu.Unlock()
	case v == listConflict && s.state == slotHeld:
		s.conflicted()
	default:
		s.drop(v)
	}
}

// drop ends the slot after a listing said v (a conflict, our node missing, or a failure), and
// unlocks c.mu: a node still ours is deleted, a holder whose node is missing has lost it.
func (s *slot) drop(v listVerdict) {
	c := s.c
	holder, held := s.holder, s.state == slotHeld
	if v != listMissing && !held {
		c.dropInBackground(s.path) // remembered before end sends the waiters the normal way (flushStale)
	}
	c.end(s, v == listConflict)
	c.mu.Unlock()
	switch {
	case v == listMissing:
		if holder != nil {
			holder.deleted()
		}
	case held: // its release deletes it; until then its own node's watch tells it of a delete
		if holder != nil {
			holder.watchOwn(nil)
		}
	}
}

// epochEnded ends the slot when the session epoch that created its node ends. An idle node is
// deleted unless the session is known gone (it took the node with it); a held one is the
// holder's lease's business (it is lost, and its node goes after its release or grace).
func (s *slot) epochEnded() {
	waitStickyGate()
	c := s.c
	c.mu.Lock()
	if s.state == slotGone {
		c.mu.Unlock()
		return
	}
	held := s.state == slotHeld
	reason := s.session.Err()
	if !held && !errors.Is(reason, framework.ErrSessionLost) && !errors.Is(reason, framework.ErrClosed) {
		c.dropInBackground(s.path) // remembered before end sends the waiters the normal way (flushStale)
	}
	c.end(s, false)
	c.mu.Unlock()
}

// armDir sets the directory watch for the slot's first lease, on its own goroutine, and closes
// done. The listing that comes with it may already show a conflicting contender (the lease's
// release then deletes the node) or our node gone (the lease is lost). If it fails, the lease
// falls back to the usual watch on its own node, and its release lists again. When the lease
// was released meanwhile (the slot is being checked: keep), the verdict settles the slot: kept
// on a clear listing, else ended, its node deleted unless it is gone.
func (s *slot) armDir(done chan struct{}) {
	defer close(done)
	if g := stickyArmGate.Load(); g != nil {
		<-*g
	}
	c := s.c
	kids, _, w, err := c.lock.fw.ChildrenW(s.ctx, c.lock.path)
	c.mu.Lock()
	s.armOn(kids, w, err)
}

// armOn decides on the listing that set the slot's first directory watch w (kids, or its error
// err): armDir's, or the create's (useListed). Called with c.mu held; it unlocks it.
func (s *slot) armOn(kids []string, w *framework.Watch, err error) {
	c := s.c
	s.armed = true
	checking := s.state == slotChecking
	if s.state != slotHeld && !checking {
		c.mu.Unlock()
		return
	}
	switch v := s.verdict(kids, err); {
	case v == listClear:
		s.watchDir(w)
		if checking {
			s.settle()
		}
		c.mu.Unlock()
	case checking:
		s.drop(v)
	case v == listConflict:
		s.conflicted()
	case v == listMissing:
		s.drop(v)
	default:
		holder := s.holder
		c.mu.Unlock()
		if holder != nil {
			holder.watchOwn(nil)
		}
	}
}

// conflicted records a conflicting contender seen while a local lease holds the node, and
// unlocks c.mu: the release deletes the node, local waiters take the normal way (behind the
// contender), and, the directory no longer being watched, the holder watches its own node
// for a delete as a plain lease does.
func (s *slot) conflicted() {
	c := s.c
	s.conflict = true
	for _, q := range s.waiters {
		q <- nil
	}
	s.waiters = nil
	holder := s.holder
	c.mu.Unlock()
	if holder != nil {
		holder.watchOwn(nil)
	}
}

// revoked records a revocation request (Revoke) on the node of a local lease: it asks for the
// lock back, as a conflicting contender does, so the release deletes the node (kept idle, it
// would carry the request to every later local lease, each revoked at its grant) and local
// waiters take the normal way. A nil slot (a plain lease) does nothing.
func (s *slot) revoked() {
	if s == nil {
		return
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.state != slotHeld {
		return
	}
	s.conflict = true
	for _, q := range s.waiters {
		q <- nil
	}
	s.waiters = nil
}

// holderLost ends the slot when n, the local lease holding it, is lost (its node deleted by
// another client, which its own node's watch reported; its epoch ended): local waiters then take
// the normal way, as the waiters behind a lost plain lease are granted, instead of waiting for a
// release that a lost holder may never make (the loss grace exists for that). The node is the
// lost lease's business: deleted at its release or after the grace. A nil slot does nothing.
func (s *slot) holderLost(n *node) {
	if s == nil {
		return
	}
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.state == slotHeld && s.holder == n {
		c.end(s, false)
	}
}
