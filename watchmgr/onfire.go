package watchmgr

import (
	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/internal/ilist"
)

// A waiter that must not hold a goroutine while it waits (an acquire loop whose wake-up starts
// the next burst of requests on a warm goroutine, issue 27) asks the Manager to call it when its
// watch has news: OnFire. Nothing reads go-zookeeper's channel meanwhile. go-zookeeper calls the
// event callback with a watch event just before it sends that event into the watches' channels
// (conn.go: sendEvent, then notifyWatches), so a callback run from here may Wait on the watch:
// the event is in the channel or about to be.

// Hook is one OnFire registration, linked in the Manager's hooks and in its watch's while
// registered. A Watch carries the first one made for it: a registration costs no allocation.
type Hook struct {
	s      *zkWatch
	m      *Manager
	fn     func(zk.Event)
	keep   bool              // OnEvent's: a session interruption is no news
	links  ilist.Links[Hook] // in the Manager's hooks
	wlinks ilist.Links[Hook] // in its watch's hooks
}

// hookList is the Manager's registered hooks, the latest first: a registration and its removal
// cost no map operation and no allocation beyond the hook (issue 27). m.mu guards it.
type hookList = ilist.List[Hook, hookLinks]

// watchHooks is one watch's registered hooks; the Manager's mu guards it.
type watchHooks = ilist.List[Hook, hookWatchLinks]

// hookLinks finds a Hook's links for Manager.hooks, hookWatchLinks for zkWatch.hooks.
type (
	hookLinks      struct{}
	hookWatchLinks struct{}
)

func (hookLinks) Links(h *Hook) *ilist.Links[Hook]      { return &h.links }
func (hookWatchLinks) Links(h *Hook) *ilist.Links[Hook] { return &h.wlinks }

// OnFire arranges for fn to run once when the watch has news: go-zookeeper's event for it is
// on its way (fn gets its type and path: the watch fired or was invalidated; nobody need read
// the channel), the session was interrupted after the Watch was made (disconnect or expiry), or
// the Manager closed (fn gets a zero Event for these two). fn then runs on go-zookeeper's
// receive loop or connect loop, or on the closing goroutine: it must not block and must not
// call the connection (it hands its work to another goroutine). When the news is already there,
// OnFire registers nothing and returns now = true: the caller goes on itself. Otherwise h.Stop
// removes the registration. No goroutine waits for the watch either way.
func (w *Watch) OnFire(fn func(zk.Event)) (h *Hook, now bool) { return w.hookOn(fn, false) }

// OnEvent is OnFire for a watch kept across session interruptions: fn runs once the watch
// fires or is invalidated (with the event's type and path), the session expires (an
// EventNotWatching, at once: go-zookeeper invalidates every watch then, and reports each path
// just after) or the Manager closes (a zero Event, unless the connection's close invalidated
// the watch first). A disconnect is no news: go-zookeeper sets the watch again on the next
// connection. A held lease's watch on its own node waits this way with no goroutine of its own.
func (w *Watch) OnEvent(fn func(zk.Event)) (h *Hook, now bool) { return w.hookOn(fn, true) }

// hookOn registers fn for OnFire, or for OnEvent with keep.
func (w *Watch) hookOn(fn func(zk.Event), keep bool) (h *Hook, now bool) {
	s, m := w.s, w.s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || s.raw == nil || s.notified || s.ended() || (!keep && closedChan(w.intr)) {
		return nil, true
	}
	if w.hookUsed { // a Hook is never reused: a stale Stop must not remove a later registration
		h = new(Hook)
	} else {
		h, w.hookUsed = &w.hook, true
	}
	h.s, h.m, h.fn, h.keep = s, m, fn, keep
	m.hooks.PushFront(h)
	s.hooks.PushFront(h)
	return h, false
}

// Stop removes the registration, and reports whether it did before its callback was taken
// (then the callback never runs). A nil Hook's Stop reports false.
func (h *Hook) Stop() bool {
	if h == nil {
		return false
	}
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.hooks.Remove(h) {
		return false
	}
	h.s.hooks.Remove(h)
	return true
}

// closedChan reports whether c is closed.
func closedChan(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// kindsOf returns the kinds of watch go-zookeeper fires with an event of type t (conn.go:
// notifyWatches), one bit per slot; an invalidation (EventNotWatching) ends watches of every kind.
func kindsOf(t zk.EventType) uint8 {
	switch t {
	case zk.EventNodeCreated:
		return 1 << Exists
	case zk.EventNodeDataChanged:
		return 1<<Exists | 1<<Data
	case zk.EventNodeChildrenChanged:
		return 1 << Children
	case zk.EventNodeDeleted, zk.EventNotWatching:
		return 1<<Exists | 1<<Data | 1<<Children
	}
	return 0
}

// NodeEvent is told of each watch event go-zookeeper reports, before go-zookeeper sends it to
// the watches' channels, with path as Track was given it (the framework strips its namespace).
// It marks the watches the event is for as notified, and runs their OnFire callbacks. A watch
// still being registered (its reply read, Track not yet called) is marked when Track comes.
// It never blocks and never calls the connection.
func (m *Manager) NodeEvent(t zk.EventType, path string) {
	var buf [2]func(zk.Event)
	fns := buf[:0]
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	if e := m.paths[path]; e != nil {
		kinds := kindsOf(t)
		for k := range numKinds {
			if kinds&(1<<k) == 0 {
				continue
			}
			if s := e.live[k]; s != nil {
				s.notified = true
				fns = m.takeHooks(s, fns)
			}
			if e.pend[k] != nil {
				e.early[k] = true
			}
		}
	}
	m.mu.Unlock()
	for _, fn := range fns {
		fn(zk.Event{Type: t, Path: path})
	}
}

// takeHooks removes s's OnFire registrations and appends their callbacks to fns; m.mu is held.
func (m *Manager) takeHooks(s *zkWatch, fns []func(zk.Event)) []func(zk.Event) {
	for h := s.hooks.PopFront(); h != nil; h = s.hooks.PopFront() {
		m.hooks.Remove(h)
		fns = append(fns, h.fn)
	}
	return fns
}

// takeAllHooks removes every OnFire and OnEvent registration and returns their callbacks;
// m.mu is held. The Manager's end is news for every watch.
func (m *Manager) takeAllHooks() []func(zk.Event) {
	var fns []func(zk.Event)
	for h := m.hooks.PopFront(); h != nil; h = m.hooks.PopFront() {
		h.s.hooks.Remove(h)
		fns = append(fns, h.fn)
	}
	return fns
}

// takeInterruptHooks removes the OnFire registrations, for which a session interruption is
// news, and returns their callbacks; OnEvent's stay, unless the session expired: that
// invalidates every watch (go-zookeeper reports each path to NodeEvent only after the expiry's
// state event), so their callbacks are returned too, in invalidated. m.mu is held.
func (m *Manager) takeInterruptHooks(expired bool) (news, invalidated []func(zk.Event)) {
	for h := m.hooks.Front(); h != nil; {
		next := m.hooks.Next(h)
		if !h.keep || expired {
			m.hooks.Remove(h)
			h.s.hooks.Remove(h)
			if h.keep {
				invalidated = append(invalidated, h.fn)
			} else {
				news = append(news, h.fn)
			}
		}
		h = next
	}
	return news, invalidated
}
