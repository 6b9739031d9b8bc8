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
