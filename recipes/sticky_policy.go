package recipes

import "time"

// The adaptive off-switch of a sticky lock (issue 28): an idle node taken away before any local
// re-use (two processes alternating on one lock) costs a listing and puts our delete on the
// next holder's path, for nothing. After stickyWasteLimit such wasted nodes in a row the lock
// backs off: its next grants release normally. One local re-use resets the back-off; each time
// the first node cached after a back-off is wasted again, the next one doubles.
//
// A back-off ends after a time (1 s, doubling to 64 s), and, on a lock that has re-used a node
// at least once (trusted), after a number of grants too (4, doubling to 4,096), whichever comes
// first. Counting in grants bounds the cost of a back-off in acquisitions, whatever the lock's
// rate: a busy lock whose nodes a rare visitor happened to take twice in a row (one visit in ten
// re-uses, issue 28's s2) releases a few nodes normally instead of every acquisition of a second. A lock that never re-uses a node (strict alternation) keeps the time
// back-off alone: it caches one node per back-off, a vanishing share of its releases, so it
// costs what a plain lock does. The time bound makes a slow lock whose pattern changed sticky
// again within a minute.
const (
	stickyWasteLimit       = 2                // wasted nodes in a row that start a back-off
	stickyBackoffGrantsMin = 4                // the first back-off's grants
	stickyBackoffGrantsMax = 4096             // the most grants of one back-off
	stickyBackoffMin       = time.Second      // the first back-off's longest time
	stickyBackoffMax       = 64 * time.Second // the longest time of any back-off
)

// stickyPolicy is the off-switch's state for one lock. Pure logic (the caller passes the
// time); not safe for concurrent use: the lock's sticky cache guards it.
type stickyPolicy struct {
	wasted  int           // wasted nodes in a row
	trusted bool          // a local re-use came at least once since the lock was made
	grants  int           // the last back-off's grants; 0 before the first
	backoff time.Duration // the last back-off's time; 0 before the first
	left    int           // grants still to release normally in this back-off; -1: no bound in grants
	until   time.Time     // the back-off ends then at the latest
	visits  visitRule     // whether a grant that queued may be cached (sticky_visit.go)
}

// keep reports whether a lease granted at now may be kept idle at its release; queued says that
// the acquire waited behind another node first (the visit rule decides on it). A grant refused
// counts against the back-off.
func (p *stickyPolicy) keep(now time.Time, queued bool) bool {
	visit := !p.visits.granted(queued)
	if !p.backingOff(now) {
		p.left = 0
		return !visit
	}
	if p.left > 0 {
		p.left--
	}
	return false
}

// ended records the end of a cached node at now: reused when a local re-grant took it at least
// once, wasted when a conflicting contender took it away before any (the other ends, the idle
// time, a close, a lost session, say nothing about the pattern and are neither); queued when
// the grant that made it queued (the visit rule learns from it).
func (p *stickyPolicy) ended(now time.Time, reused, wasted, queued bool) {
	p.visits.ended(queued, reused, wasted)
	switch {
	case reused:
		*p = stickyPolicy{trusted: true, visits: p.visits}
	case wasted:
		p.wasted++
		if p.wasted < stickyWasteLimit {
			return
		}
		p.backoff = min(max(2*p.backoff, stickyBackoffMin), stickyBackoffMax)
		p.left, p.until = -1, now.Add(p.backoff)
		if p.trusted {
			p.grants = min(max(2*p.grants, stickyBackoffGrantsMin), stickyBackoffGrantsMax)
			p.left = p.grants
		}
		p.wasted = stickyWasteLimit - 1 // one more wasted node after the back-off starts the next, doubled
	}
}

// backingOff reports whether a release of a lease granted at now deletes its node because
// caching did not pay.
func (p *stickyPolicy) backingOff(now time.Time) bool { return p.left != 0 && now.Before(p.until) }
