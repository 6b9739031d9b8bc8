package framework

import (
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/internal/ilist"
)

// EndHook is a function tied to the end of a session epoch by Session.AfterEnd. Its zero value
// is ready to use; it must not be copied once in use. A lock's held node embeds one, so tying a
// grant to its epoch allocates nothing of its own (issue 27).
type EndHook struct {
	s     atomic.Pointer[Session] // while linked; nil once it ran, started or was stopped
	fn    func()
	links ilist.Links[EndHook] // in s.hooks while s is set
}

// endHooks is the list of a session's hooks, the latest AfterEnd first.
type endHooks = ilist.List[EndHook, endHookLinks]

// endHookLinks finds an EndHook's links for Session.hooks (no method on the exported type).
type endHookLinks struct{}

func (endHookLinks) Links(h *EndHook) *ilist.Links[EndHook] { return &h.links }

// AfterEnd arranges for fn to run on a goroutine of its own when the epoch ends, or at once (on
// one) if it has ended, like context.AfterFunc(s.Context(), fn), without what a context costs
// per call (an afterFunc context, an entry in the parent's children map, its removal). Like
// Done, it first checks the deadline. h must be new, or stopped, or its fn must have run.
func (s *Session) AfterEnd(h *EndHook, fn func()) {
	s.poll()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		go fn()
		return
	}
	h.s.Store(s)
	h.fn = fn
	s.hooks.PushFront(h)
}

// Stop keeps h's fn from running, and reports whether it did: false when fn has run or been
// started already (the epoch ended), or h was stopped before.
func (h *EndHook) Stop() bool {
	s := h.s.Load() // changed under s.mu only: read first to find the lock, then again under it
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.s.Load() != s {
		return false
	}
	s.hooks.Remove(h)
	h.s.Store(nil)
	h.fn = nil
	return true
}

// runHooks starts every hook still tied to s, each on a goroutine of its own; s.mu is held and
// the epoch has ended.
func (s *Session) runHooks() {
	for h := s.hooks.PopFront(); h != nil; h = s.hooks.PopFront() {
		fn := h.fn
		h.s.Store(nil)
		h.fn = nil
		go fn()
	}
}
