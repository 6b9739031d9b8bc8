package recipes

import (
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// The slot's directory watch from the acquire's own listing (issue 28, s1). A sticky lock's
// first grant of a node needs a directory watch for its slot (sticky_cache.go): set by a listing
// of its own (armDir), that is one request more per cached node, and since session 12 it lands
// after the first acquisition. When the acquisition is granted on the listing sent behind its
// create, that listing can set the watch instead (framework.CreateAndListW): the slot then
// decides on that listing's children exactly as armDir decides on its own, and takes its watch.
//
// The watch is taken only when it is as good as armDir's: the grant was made on that very
// listing (not after a wake, a re-listing or an own-node check), in the epoch that created our
// node, which is still live (so the listing, sent behind the create, was answered in that
// session: framework/replyepoch.go), and the watch has neither fired nor been interrupted since
// (our node still stands, and no contender came after the listing). Any other grant keeps armDir.

// listedDir is the create's listing that granted, and the children watch it set.
type listedDir struct {
	w    *framework.Watch
	kids []string
}

// listWatch reports whether an acquire of drv should set its slot's directory watch with the
// listing behind its create. The watch is wasted when the acquisition queues (it fires at the
// next change of the directory: one notification nobody needs) or is not cached, so it is
// asked for only when a grant on that listing is likely and would be cached: the lock has no
// slot (an acquire that takes the normal way beside one, a second reader or one sent away by a
// conflict, is not cached), the adaptive off-switch is not backing off (sticky_policy.go), and
// this process's last normal acquisition of the lock was granted on its create's listing (or
// there was none): a lock that queued last time (a visitor, two processes alternating, a busy
// TryAcquire) sends a plain listing, and its slot, if any, arms as before.
func (c *stickyCache) listWatch(drv driver.Driver) bool {
	if c == nil || drv != c.lock.drv || stickyArmGate.Load() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed && c.slot == nil && !c.missed && !c.policy.backingOff(time.Now())
}

// listedGrant finishes begin's turn t, decided on cl, the listing behind our create: for a
// sticky lock it notes whether the acquisition was granted on that listing (listWatch's memory)
// and, if so and the listing set a watch, hands both on with the grant (turn.dir, grant.dir) to
// the slot. Granted on that listing: held, in cl's epoch, without queueing (which every decision
// that waits or lists again marks first) and without an own-node check.
func (c *contender) listedGrant(t turn, cl framework.CreateListing) turn {
	sc := c.lock.sticky
	if sc == nil || c.drv != sc.lock.drv {
		return t
	}
	onListing := t.err == nil && t.held && !c.queued && t.own == nil && t.sess == cl.Session
	sc.mu.Lock()
	sc.missed = !onListing
	sc.mu.Unlock()
	if onListing && cl.Watch != nil {
		t.dir = &listedDir{w: cl.Watch, kids: cl.Children}
	}
	return t
}

// useListed makes d, the create's listing that granted the slot's first lease and its watch, the
// slot's first directory listing in place of armDir's, when that watch is still good: the
// slot's epoch (the grant's, which created the node) is live, and the watch has had no news (no
// event, even one a sharer is reading just now: HasNews) and no interruption since the listing. It then decides on d's children as armDir does (a
// conflicting contender listed behind us: the release deletes the node) and unlocks c.mu;
// otherwise it reports false with c.mu still held. Called with c.mu held, the slot held.
func (s *slot) useListed(d *listedDir) bool {
	if d == nil || d.w == nil || d.w.HasNews() || s.session.Err() != nil {
		return false
	}
	select {
	case <-d.w.Interrupted():
		return false
	default:
	}
	s.armOn(d.kids, d.w, nil)
	return true
}
