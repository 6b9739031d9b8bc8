package watchmgr

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// ErrSessionInterrupted is returned by Watch.Wait when the session was disconnected or expired
// after the watch was set (or the watch was invalidated): the waiter should re-evaluate.
var ErrSessionInterrupted = errors.New("watchmgr: session interrupted")

// Kind says which go-zookeeper call set a watch.
type Kind int

// Watch kinds.
const (
	Data     Kind = iota // GetW: fires on data change or delete
	Exists               // ExistsW: fires on create, data change or delete
	Children             // ChildrenW: fires on children change or delete
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Data:
		return "data"
	case Exists:
		return "exists"
	case Children:
		return "children"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Watch is one tracked one-shot watch. Safe for concurrent use; several goroutines may Wait, and
// all of them see the same event.
type Watch struct {
	kind Kind
	path string
	out  chan zk.Event   // receives the event once, then is closed
	ev   zk.Event        // the event; written before out is closed
	intr <-chan struct{} // closes at the first disconnect/expiry after Track
}

// Track wraps the one-shot channel returned by go-zookeeper's GetW, ExistsW or ChildrenW. The watch
// counts in Live until go-zookeeper fires or invalidates it (or the Manager closes), whether or not
// anyone waits on it. A nil ch yields a watch that never fires but is interrupted normally and is not
// counted.
func (m *Manager) Track(kind Kind, path string, ch <-chan zk.Event) *Watch {
	m.mu.Lock()
	w := &Watch{kind: kind, path: path, out: make(chan zk.Event, 1), intr: m.intr}
	closed := m.closed
	if !closed && ch != nil {
		m.live.Add(1)
		m.watches.Add(1)
	}
	m.mu.Unlock()
	switch {
	case closed:
		w.fire(zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: path, Err: zk.ErrClosing})
	case ch != nil:
		go m.follow(w, ch)
	}
	return w
}

// follow waits for go-zookeeper to fire or invalidate the watch, or for the Manager to close.
func (m *Manager) follow(w *Watch, ch <-chan zk.Event) {
	defer m.watches.Done()
	defer m.live.Add(-1)
	select {
	case ev, ok := <-ch:
		if !ok {
			ev = zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: w.path, Err: zk.ErrClosing}
		}
		w.fire(ev)
	case <-m.quit:
		w.fire(zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: w.path, Err: zk.ErrClosing})
	}
}

// fire records ev and publishes it exactly once.
func (w *Watch) fire(ev zk.Event) {
	w.ev = ev
	w.out <- ev
	close(w.out)
}

// Live returns the number of tracked watches registered and not yet fired or invalidated.
func (m *Manager) Live() int {
	return int(m.live.Load())
}

// Kind returns how the watch was set.
func (w *Watch) Kind() Kind { return w.kind }

// Path returns the watched path as given to Track.
func (w *Watch) Path() string { return w.path }

// Events returns a one-shot channel that receives the watch's event and is then closed, for select
// loops (a copy of go-zookeeper's channel). Only one receiver gets the value; Wait works regardless.
func (w *Watch) Events() <-chan zk.Event { return w.out }

// Interrupted returns a channel that closes at the first disconnect or expiry dispatched after the
// watch was tracked (and when the Manager closes). go-zookeeper keeps watches across a disconnect,
// so an interruption does not end the watch; it tells a waiter to re-evaluate.
func (w *Watch) Interrupted() <-chan struct{} { return w.intr }

// Wait blocks until the watch fires (returns its event), ctx ends (ctx.Err()), or the session is
// interrupted after the watch was set (ErrSessionInterrupted). An invalidation by go-zookeeper
// (session expiry or close: an EventNotWatching) returns the event and ErrSessionInterrupted
// wrapping the event's error. A fired event wins over a simultaneous interruption.
func (w *Watch) Wait(ctx context.Context) (zk.Event, error) {
	select {
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	default:
	}
	select {
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-w.intr:
		select {
		case ev, ok := <-w.out:
			return w.result(ev, ok)
		default:
		}
		return zk.Event{}, ErrSessionInterrupted
	}
}

// result turns a receive from out into Wait's return values.
func (w *Watch) result(ev zk.Event, ok bool) (zk.Event, error) {
	if !ok {
		ev = w.ev
	}
	if ev.Type == zk.EventNotWatching {
		return ev, fmt.Errorf("%w: %w", ErrSessionInterrupted, ev.Err)
	}
	return ev, nil
}
