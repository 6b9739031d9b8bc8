package recipes

import "time"

// The visit rule of a sticky lock (issue 28, s2): a grant that queued behind another node (the
// lock was held, or idle at another process) is a visit unless the lock has shown that it
// re-uses such grants. A visit is not cached: its release deletes the node at once, so the
// lock's owner, whose idle node the visit took away, gets it back with a plain create instead of
// a handover behind our idle node (its create, a notification to us, our delete, a notification
// back). A lock that migrates between processes in turns of several acquisitions (s3) re-uses
// its queued grants: it shows it when, after a queued grant released so, the process's next
// grant of the lock did not queue (it took the lock again before anyone else did); from then on
// its queued grants are cached, until one is taken away before any local re-use.
//
// "Queued" is what the acquire loop saw: when the other process's idle node goes between our
// create and our listing (its delete overtook our listing), the grant did not queue and is
// cached as any plain grant is, as it was before the rule.
//
// The rule only ever chooses to delete a node that a cached lock would have kept: no grant is
// made on anything weaker than before (docs/safety.md, "Sticky leases").

// visitRule is the visit rule's state for one lock. Pure logic, guarded by the sticky cache's
// mutex as stickyPolicy is.
type visitRule struct {
	cache   bool      // queued grants are cached: the lock re-used one, or took the lock again after one
	probing bool      // the last grant queued and was not cached; the next grant tells whether the lock comes back
	last    time.Time // the last visit's grant (zero: none yet)
}

// visitQuietGap is how long a lock must have gone without a visit from this process for the
// next visit's delete to run in the background (dropVisit). A visit that comes sooner is part of
// two processes alternating on the lock (s4's ping-pong): there the other process acquires right
// after our release, and a delete still in flight would make it queue behind our node (a watch,
// a notification and a check more than a plain acquisition), its own grant then a visit, and so
// on, every acquisition a handover. An s2 visitor comes back to a given foreign lock about once a
// second; two processes alternating, every few milliseconds.
const visitQuietGap = 100 * time.Millisecond

// background records a visit granted at now and reports whether its release may delete the node
// in the background: the lock's last visit from this process was at least visitQuietGap ago.
func (v *visitRule) background(now time.Time) bool {
	ok := v.last.IsZero() || now.Sub(v.last) >= visitQuietGap
	v.last = now
	return ok
}

// granted records a grant and reports whether the visit rule lets it be cached; queued says
// whether the acquire waited behind another node first.
func (v *visitRule) granted(queued bool) bool {
	switch {
	case queued && !v.cache:
		v.probing = true
		return false
	case v.probing: // the first grant after a visit released plainly did not queue
		v.cache, v.probing = true, false
	}
	return true
}

// ended records the end of a cached node that a queued grant made (queued), re-used locally
// (reused) or taken away by a conflicting contender before any re-use (wasted): a wasted one
// means that the lock's queued grants are visits again.
func (v *visitRule) ended(queued, reused, wasted bool) {
	if queued && wasted && !reused {
		v.cache = false
	}
}

// dropVisit deletes the node of a visit, just let go of by its Release, in the background (the
// framework's guaranteed delete), so that Release returns without waiting for the delete's
// round trip: the visitor has no use for the lock after it (its acquisitions go to its own
// locks). That is safe because the lock only stays taken a little longer: another process still
// sees the node and queues behind it until the delete lands. In this process the lock remembers
// the node as it does an ended slot's (staleNode), and its next acquire that takes the normal
// way waits for the delete first (flushStale), bounded by its ctx, instead of queueing behind
// its own old node; Framework.Close waits for the delete as for any background one, and a
// closed session takes the node with it. Safe with or without c.mu held.
func (c *stickyCache) dropVisit(p string) {
	g := stickyVisitGate.Load()
	if g == nil {
		c.dropInBackground(p)
		return
	}
	gone := make(chan struct{}) // a test holds the delete: the node is in flight until it lets go
	st := &staleNode{path: p, gone: gone}
	c.stale.Store(st)
	go func() {
		<-*g
		<-c.lock.fw.DeleteInBackground(p)
		close(gone)
		c.stale.CompareAndSwap(st, nil)
	}()
}
