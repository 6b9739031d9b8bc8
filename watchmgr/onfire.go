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

// fireHook is one OnFire registration, linked in the Manager's hooks while registered.
type fireHook struct {
	s     *zkWatch
	fn    func(zk.Event)
	links ilist.Links[fireHook]
}

// hookList is the Manager's registered hooks, the latest first: a registration and its removal
// cost no map operation and no allocation beyond the hook (issue 27). m.mu guards it.
type hookList = ilist.List[fireHook, fireHookLinks]

// fireHookLinks finds a fireHook's links for Manager.hooks.
type fireHookLinks struct{}

func (fireHookLinks) Links(h *fireHook) *ilist.Links[fireHook] { return &h.links }

// OnFire arranges for fn to run once when the watch has news: go-zookeeper's event for it is
// on its way (fn gets its type and path: the watch fired or was invalidated; nobody need read
// the channel), the session was interrupted after the Watch was made (disconnect or expiry), or
// the Manager closed (fn gets a zero Event for these two). fn then runs on go-zookeeper's
// receive loop or connect loop, or on the closing goroutine: it must not block and must not
// call the connection (it hands its work to another goroutine). When the news is already there,
// OnFire registers nothing and returns now = true: the caller goes on itself. Otherwise stop
// removes the registration; it reports whether it did before fn was called (then fn never
// runs). No goroutine waits for the watch either way.
func (w *Watch) OnFire(fn func(zk.Event)) (stop func() bool, now bool) {
	s, m := w.s, w.s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || s.raw == nil || s.notified || s.ended() || closedChan(w.intr) {
		return nil, true
	}
	h := &fireHook{s: s, fn: fn}
	m.hooks.PushFront(h)
	s.hooks = append(s.hooks, h)
	return func() bool { return m.unhook(h) }, false
}

// unhook removes h, reporting whether it was still registered.
func (m *Manager) unhook(h *fireHook) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.hooks.Remove(h) {
		return false
	}
	hs := h.s.hooks
	for i, x := range hs {
		if x == h {
			hs[i] = hs[len(hs)-1]
			hs[len(hs)-1] = nil
			h.s.hooks = hs[:len(hs)-1]
			break
		}
	}
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

// kindsOf lists the kinds of watch go-zookeeper fires with an event of type t (conn.go:
// notifyWatches); an invalidation (EventNotWatching) ends watches of every kind.
func kindsOf(t zk.EventType) []Kind {
	switch t {
	case zk.EventNodeCreated:
		return []Kind{Exists}
	case zk.EventNodeDataChanged:
		return []Kind{Exists, Data}
	case zk.EventNodeChildrenChanged:
		return []Kind{Children}
	case zk.EventNodeDeleted, zk.EventNotWatching:
		return []Kind{Exists, Data, Children}
	}
	return nil
}

// NodeEvent is told of each watch event go-zookeeper reports, before go-zookeeper sends it to
// the watches' channels, with path as Track was given it (the framework strips its namespace).
// It marks the watches the event is for as notified, and runs their OnFire callbacks. A watch
// still being registered (its reply read, Track not yet called) is marked when Track comes.
// It never blocks and never calls the connection.
func (m *Manager) NodeEvent(t zk.EventType, path string) {
	var fns []func(zk.Event)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	for _, k := range kindsOf(t) {
		key := watchKey{k, path}
		if s := m.byKey[key]; s != nil {
			s.notified = true
			fns = m.takeHooks(s, fns)
		}
		if _, ok := m.pending[key]; ok {
			if m.early == nil {
				m.early = make(map[watchKey]struct{})
			}
			m.early[key] = struct{}{}
		}
	}
	m.mu.Unlock()
	for _, fn := range fns {
		fn(zk.Event{Type: t, Path: path})
	}
}

// takeHooks removes s's OnFire registrations and appends their callbacks to fns; m.mu is held.
func (m *Manager) takeHooks(s *zkWatch, fns []func(zk.Event)) []func(zk.Event) {
	for _, h := range s.hooks {
		m.hooks.Remove(h)
		fns = append(fns, h.fn)
	}
	clear(s.hooks)
	s.hooks = s.hooks[:0]
	return fns
}

// takeAllHooks removes every OnFire registration and returns their callbacks; m.mu is held.
// A session interruption or the Manager's end is news for every watch.
func (m *Manager) takeAllHooks() []func(zk.Event) {
	var fns []func(zk.Event)
	for h := m.hooks.PopFront(); h != nil; h = m.hooks.PopFront() {
		fns = append(fns, h.fn)
		clear(h.s.hooks)
		h.s.hooks = h.s.hooks[:0]
	}
	return fns
}
