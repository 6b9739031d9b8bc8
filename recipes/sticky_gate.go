package recipes

import "sync/atomic"

// stickyGate, set only by tests, holds the sticky slot's event handlers (a fired directory
// watch, an ended session epoch) until the channel closes: a test then sees that a local
// Acquire refuses on its own checks, before any handler has run, as it must when an event has
// just arrived.
var stickyGate atomic.Pointer[chan struct{}]

// waitStickyGate waits while a test holds the gate.
func waitStickyGate() {
	if g := stickyGate.Load(); g != nil {
		<-*g
	}
}

// stickyAwaitHook, set only by tests, runs in a local waiter's await once its ctx has ended and
// before it looks whether the slot was handed to it: a test hands the slot over (and cuts the
// connection) at that instant.
var stickyAwaitHook atomic.Pointer[func()]

// stickyVisitGate, set only by tests, holds the background delete of a visit's node (its
// Release has returned) until the channel closes: a test then sees the node still standing
// after Release, and a later acquire of the lock waiting for that delete.
var stickyVisitGate atomic.Pointer[chan struct{}]

// stickyArmGate, set only by tests, holds the listing that sets a new slot's directory watch
// (armDir) until the channel closes: a test then releases the slot's first lease while that
// listing is in flight. While it is set, acquires send a plain listing behind their create
// (listWatch), so that every new slot takes that way.
var stickyArmGate atomic.Pointer[chan struct{}]
