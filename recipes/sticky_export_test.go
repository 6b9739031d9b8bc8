package recipes

import "sync"

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
