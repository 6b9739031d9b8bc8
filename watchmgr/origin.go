package watchmgr

// A watch's origin is the connection whose request set it and whose reply said so (an opaque
// value the framework gives TrackOn; nil when unknown). ZooKeeper sends a connection its watch
// events and its replies in the order it applied the changes behind them, so a caller that sees a
// later change (a reply, another watch's event) on that same connection, with the watch still
// quiet, knows the watched node had not changed when that later change was made. A reconnect
// re-registers watches and may report the changes made meanwhile in any order: the connection
// then differs, and the caller must read instead (see framework.Framework.InOrder).

// Origin returns the connection the watch was set on (TrackOn), or nil when unknown. A Watch
// that shares another's go-zookeeper watch (Reserve) has that watch's origin.
func (w *Watch) Origin() any { return w.s.origin }

// HasNews reports whether the watch has fired or been invalidated, or NodeEvent has been told
// of its event (which go-zookeeper sends to the channel right after): unlike HasFired, it
// cannot miss an event that a goroutine sharing the watch is reading from the channel just now.
func (w *Watch) HasNews() bool {
	s := w.s
	s.m.mu.Lock()
	notified := s.notified
	s.m.mu.Unlock()
	return notified || s.ended()
}
