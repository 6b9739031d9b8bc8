package recipes

import (
	"context"
	"sync"
	"time"
)

// HoldStickyHandlers holds every sticky slot's event handlers until release is called.
func HoldStickyHandlers() (release func()) {
	ch := make(chan struct{})
	stickyGate.Store(&ch)
	var once sync.Once
	return func() {
		once.Do(func() {
			stickyGate.Store(nil)
			close(ch)
		})
	}
}

// StickyWaiters returns how many local acquirers wait in l's sticky slot.
func StickyWaiters(l *Lock) int {
	c := l.sticky
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.slot == nil {
		return 0
	}
	return len(c.slot.waiters)
}

// SetStickyAwaitHook makes every local sticky waiter whose ctx has ended call fn before it
// looks whether the slot was handed to it. remove undoes it.
func SetStickyAwaitHook(fn func()) (remove func()) {
	stickyAwaitHook.Store(&fn)
	return func() { stickyAwaitHook.Store(nil) }
}

// StickyConflicted reports whether l's sticky slot, held, has seen a conflicting contender.
func StickyConflicted(l *Lock) bool {
	c := l.sticky
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slot != nil && c.slot.conflict
}

// StickySnapshot reads l's sticky cache for diagnostics: its slot (nil when none), the slot's
// local grants, and whether the adaptive off-switch is on now (a release deletes its node).
func StickySnapshot(l *Lock) (slot any, reuses int, off bool) {
	c := l.sticky
	if c == nil {
		return nil, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	off = c.policy.backingOff(time.Now())
	if c.slot == nil {
		return nil, 0, off
	}
	return c.slot, c.slot.reuses, off
}

// StickyStale reports whether l remembers the node of an ended slot whose delete may still be in
// flight (the next acquire that takes the normal way waits for that delete first: flushStale).
func StickyStale(l *Lock) bool {
	return l.sticky != nil && l.sticky.stale.Load() != nil
}

// HoldStickyVisitDeletes holds the background delete of every visit's node (sticky_visit.go)
// until release is called.
func HoldStickyVisitDeletes() (release func()) {
	ch := make(chan struct{})
	stickyVisitGate.Store(&ch)
	var once sync.Once
	return func() {
		once.Do(func() {
			stickyVisitGate.Store(nil)
			close(ch)
		})
	}
}

// FlushStickyStale waits, bounded by ctx, until the background delete of l's last ended or
// visited node has ended (as an acquire that takes the normal way does first).
func FlushStickyStale(ctx context.Context, l *Lock) { l.sticky.flushStale(ctx) }

// HoldStickyArming holds every new slot's directory-watch listing (armDir) until release is
// called; meanwhile no slot takes its watch from the create's listing (every one arms so).
func HoldStickyArming() (release func()) {
	ch := make(chan struct{})
	stickyArmGate.Store(&ch)
	var once sync.Once
	return func() {
		once.Do(func() {
			stickyArmGate.Store(nil)
			close(ch)
		})
	}
}

// StickyIdle reports whether l's slot is idle: released, its directory watch set (a release
// that found the slot's first listing in flight leaves it being checked until that listing's
// verdict: keep).
func StickyIdle(l *Lock) bool {
	c := l.sticky
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slot != nil && c.slot.state == slotIdle
}
