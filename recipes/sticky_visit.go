package recipes

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
	cache   bool // queued grants are cached: the lock re-used one, or took the lock again after one
	probing bool // the last grant queued and was not cached; the next grant tells whether the lock comes back
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
