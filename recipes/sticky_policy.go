package recipes

import "time"

// The adaptive off-switch of a sticky lock (issue 28): an idle node taken away before any local
// re-use (two processes alternating on one lock) costs a listing and puts our delete on the
// next holder's path, for nothing. After stickyWasteLimit such wasted nodes in a row the lock
// releases normally for a back-off that starts at stickyBackoffMin and doubles, up to
// stickyBackoffMax, each time the first node cached after a back-off is wasted again. One local
// re-use resets it all. Under strict alternation the lock is then sticky for a vanishing share
// of its releases (two wasted nodes, then one per back-off), so it costs what a plain lock does.
const (
	stickyWasteLimit = 2                // wasted nodes in a row that start a back-off
	stickyBackoffMin = time.Second      // the first back-off
	stickyBackoffMax = 64 * time.Second // the longest back-off: a lock whose pattern changes is sticky again within a minute
)

// stickyPolicy is the off-switch's state for one lock. Pure logic (the caller passes the
// time); not safe for concurrent use: the lock's sticky cache guards it.
type stickyPolicy struct {
	wasted  int           // wasted nodes in a row
	backoff time.Duration // the last back-off; 0 before the first
	until   time.Time     // releases delete their node until then
}

// keep reports whether a lease granted at now may be kept idle at its release.
func (p *stickyPolicy) keep(now time.Time) bool { return !now.Before(p.until) }

// ended records the end of a cached node at now: reused when a local re-grant took it at least
// once, wasted when a conflicting contender took it away before any (the other ends, the idle
// time, a close, a lost session, say nothing about the pattern and are neither).
func (p *stickyPolicy) ended(now time.Time, reused, wasted bool) {
	switch {
	case reused:
		p.wasted, p.backoff, p.until = 0, 0, time.Time{}
	case wasted:
		p.wasted++
		if p.wasted < stickyWasteLimit {
			return
		}
		p.backoff = min(max(2*p.backoff, stickyBackoffMin), stickyBackoffMax)
		p.until = now.Add(p.backoff)
		p.wasted = stickyWasteLimit - 1 // one more wasted node after the back-off starts the next, doubled
	}
}

// backingOff reports whether a release at now deletes its node because caching did not pay.
func (p *stickyPolicy) backingOff(now time.Time) bool { return !p.keep(now) }
