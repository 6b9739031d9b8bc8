package watchmgr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

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
	quit <-chan struct{} // closes when the Manager closes
	m    *Manager

	raw     <-chan zk.Event // go-zookeeper's one-shot channel; nil if untracked
	turn    chan struct{}   // holds a token while one goroutine reads raw; the others wait on out
	once    sync.Once       // fire runs once, whoever reads raw
	isFired atomic.Bool     // set by fire, before out is closed
	fwd     sync.Once       // starts the Events forwarder
}

// minPrune is the smallest size of the tracked set at which Track prunes it.
const minPrune = 64

// Track wraps the one-shot channel returned by go-zookeeper's GetW, ExistsW or ChildrenW. The watch
// counts in Live until go-zookeeper fires or invalidates it (or the Manager closes), whether or not
// anyone waits on it. A nil ch yields a watch that never fires but is interrupted normally and is not
// counted.
//
// No goroutine is started: a waiter reads go-zookeeper's channel itself, so the wake-up that hands
// over a lock costs no extra goroutine switch. go-zookeeper sends the event into that channel (it
// has room for one) before closing it, so a watch nobody waits on is seen to have fired by the
// event sitting there, and Live stops counting it.
func (m *Manager) Track(kind Kind, path string, ch <-chan zk.Event) *Watch {
	m.mu.Lock()
	w := &Watch{kind: kind, path: path, out: make(chan zk.Event, 1), intr: m.intr, quit: m.quit, m: m, raw: ch,
		turn: make(chan struct{}, 1)}
	closed := m.closed
	if !closed && ch != nil {
		if len(m.tracked) >= m.pruneAt {
			m.prune()
			m.pruneAt = max(minPrune, 2*len(m.tracked))
		}
		m.tracked[w] = struct{}{}
	}
	m.mu.Unlock()
	if closed {
		w.fire(closingEvent(path))
	}
	return w
}

// prune forgets the tracked watches that have fired; m.mu is held.
func (m *Manager) prune() {
	for w := range m.tracked {
		if w.ended() {
			delete(m.tracked, w)
		}
	}
}

// closingEvent is what a watch reports when the Manager or the connection closes.
func closingEvent(path string) zk.Event {
	return zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: path, Err: zk.ErrClosing}
}

// ended reports whether go-zookeeper has fired or invalidated the watch: its event was taken, or
// is waiting in the channel.
func (w *Watch) ended() bool { return w.fired() || len(w.raw) > 0 }

// fire records ev and publishes it, once.
func (w *Watch) fire(ev zk.Event) {
	w.once.Do(func() {
		w.ev = ev
		w.isFired.Store(true)
		w.out <- ev
		close(w.out)
	})
}

// fired reports whether the watch has fired.
func (w *Watch) fired() bool { return w.isFired.Load() }

// Live returns the number of tracked watches registered and not yet fired or invalidated.
func (m *Manager) Live() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prune()
	return len(m.tracked)
}

// Kind returns how the watch was set.
func (w *Watch) Kind() Kind { return w.kind }

// Path returns the watched path as given to Track.
func (w *Watch) Path() string { return w.path }

// Events returns a one-shot channel that receives the watch's event and is then closed, for select
// loops (a copy of go-zookeeper's channel, fed by a goroutine started on the first call, which ends
// when the watch fires or the Manager closes). Only one receiver gets the value; Wait works
// regardless.
func (w *Watch) Events() <-chan zk.Event {
	w.fwd.Do(func() {
		if w.raw == nil || w.fired() {
			return
		}
		w.m.mu.Lock()
		closed := w.m.closed
		if !closed {
			w.m.watches.Add(1)
		}
		w.m.mu.Unlock()
		if closed {
			w.closing()
			return
		}
		go w.forward()
	})
	return w.out
}

// forward reads go-zookeeper's channel for Events until the watch fires or the Manager closes;
// unlike Wait it outlives session interruptions.
func (w *Watch) forward() {
	defer w.m.watches.Done()
	select {
	case w.turn <- struct{}{}:
		defer func() { <-w.turn }()
	case <-w.out:
		return
	case <-w.quit:
		w.closing()
		return
	}
	select {
	case ev, ok := <-w.raw:
		w.fireRaw(ev, ok)
	case <-w.out:
	case <-w.quit:
		w.closing()
	}
}

// Interrupted returns a channel that closes at the first disconnect or expiry go-zookeeper reports after the
// watch was tracked (and when the Manager closes). go-zookeeper keeps watches across a disconnect,
// so an interruption does not end the watch; it tells a waiter to re-evaluate.
func (w *Watch) Interrupted() <-chan struct{} { return w.intr }

// Wait blocks until the watch fires (returns its event), ctx ends (ctx.Err()), or the session is
// interrupted after the watch was set (ErrSessionInterrupted). An invalidation by go-zookeeper
// (session expiry or close: an EventNotWatching) or the Manager's Close returns the event and
// ErrSessionInterrupted wrapping the event's error. A fired event wins over a simultaneous
// interruption.
func (w *Watch) Wait(ctx context.Context) (zk.Event, error) {
	select {
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	default:
	}
	select {
	case w.turn <- struct{}{}: // we read go-zookeeper's channel until we return
		defer func() { <-w.turn }()
		return w.readRaw(ctx)
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-w.quit:
		return w.closing()
	case <-w.intr:
		return w.interrupted()
	}
}

// readRaw is Wait for the one goroutine holding the turn on go-zookeeper's channel. Whoever reads
// the event fires the watch before giving the turn back, so a closed channel seen here was closed
// without an event: the connection closed.
func (w *Watch) readRaw(ctx context.Context) (zk.Event, error) {
	select {
	case ev, ok := <-w.raw:
		return w.fireRaw(ev, ok)
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-w.quit:
		return w.closing()
	case <-w.intr:
		select {
		case ev, ok := <-w.raw:
			return w.fireRaw(ev, ok)
		default:
		}
		return w.interrupted()
	}
}

// fireRaw fires with what a receive from go-zookeeper's channel gave.
func (w *Watch) fireRaw(ev zk.Event, ok bool) (zk.Event, error) {
	if !ok {
		ev = closingEvent(w.path)
	}
	w.fire(ev)
	return w.result(w.ev, true)
}

// closing fires the watch as closed by the Manager (unless it fired already).
func (w *Watch) closing() (zk.Event, error) {
	w.fire(closingEvent(w.path))
	return w.result(w.ev, true)
}

// interrupted reports a session interruption, unless the watch has fired or its event is waiting
// in go-zookeeper's channel (an event wins).
func (w *Watch) interrupted() (zk.Event, error) {
	select {
	case w.turn <- struct{}{}: // free: look for an event nobody has read yet
		select {
		case ev, ok := <-w.raw:
			ev, err := w.fireRaw(ev, ok)
			<-w.turn
			return ev, err
		default:
		}
		<-w.turn
	default: // another goroutine reads raw and fires out when the event comes
	}
	select {
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	default:
	}
	return zk.Event{}, ErrSessionInterrupted
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
