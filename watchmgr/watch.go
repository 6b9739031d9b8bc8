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

	raw     <-chan zk.Event    // go-zookeeper's one-shot channel; nil if untracked
	claim   chan chan struct{} // a waiter takes raw from the follower; it gives it back by closing the channel it sent
	once    sync.Once          // fire runs once, whoever reads raw
	isFired atomic.Bool        // set by fire, before out is closed
	done    func()             // run by fire: the Live count's decrement, or nothing
}

// Track wraps the one-shot channel returned by go-zookeeper's GetW, ExistsW or ChildrenW. The watch
// counts in Live until go-zookeeper fires or invalidates it (or the Manager closes), whether or not
// anyone waits on it. A nil ch yields a watch that never fires but is interrupted normally and is not
// counted.
//
// A follower goroutine reads go-zookeeper's channel while nobody waits, so that an abandoned watch
// is still counted until it fires. A waiter claims the channel from the follower and reads the event
// itself: the wake-up that hands over a lock costs no extra goroutine switch.
func (m *Manager) Track(kind Kind, path string, ch <-chan zk.Event) *Watch {
	m.mu.Lock()
	w := &Watch{kind: kind, path: path, out: make(chan zk.Event, 1), intr: m.intr,
		raw: ch, claim: make(chan chan struct{}), done: func() {}}
	closed := m.closed
	if !closed && ch != nil {
		m.live.Add(1)
		m.watches.Add(1)
		w.done = func() { m.live.Add(-1) }
	}
	m.mu.Unlock()
	switch {
	case closed:
		w.fire(closingEvent(path))
	case ch != nil:
		go m.follow(w)
	}
	return w
}

// closingEvent is what a watch reports when the Manager or the connection closes.
func closingEvent(path string) zk.Event {
	return zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: path, Err: zk.ErrClosing}
}

// follow reads go-zookeeper's channel whenever no waiter has claimed it, until the watch fires or
// the Manager closes.
func (m *Manager) follow(w *Watch) {
	defer m.watches.Done()
	for {
		select {
		case ev, ok := <-w.raw:
			w.fireRaw(ev, ok)
			return
		case back := <-w.claim:
			select {
			case <-back:
				if w.fired() {
					return
				}
			case <-m.quit:
				w.fire(closingEvent(w.path))
				return
			}
		case <-m.quit:
			w.fire(closingEvent(w.path))
			return
		}
	}
}

// fireRaw fires with what a receive from go-zookeeper's channel gave.
func (w *Watch) fireRaw(ev zk.Event, ok bool) {
	if !ok {
		ev = closingEvent(w.path)
	}
	w.fire(ev)
}

// fire records ev and publishes it, once.
func (w *Watch) fire(ev zk.Event) {
	w.once.Do(func() {
		w.ev = ev
		w.isFired.Store(true)
		w.out <- ev
		close(w.out)
		w.done()
	})
}

// fired reports whether the watch has fired.
func (w *Watch) fired() bool { return w.isFired.Load() }

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
	back := make(chan struct{})
	select {
	case w.claim <- back: // we read go-zookeeper's channel ourselves until we return
		defer close(back)
		return w.waitRaw(ctx)
	case ev, ok := <-w.out:
		return w.result(ev, ok)
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-w.intr:
		return w.interrupted()
	}
}

// waitRaw is Wait for the waiter that holds the claim on go-zookeeper's channel.
func (w *Watch) waitRaw(ctx context.Context) (zk.Event, error) {
	select {
	case ev, ok := <-w.raw:
		w.fireRaw(ev, ok)
		return w.result(w.ev, true)
	case ev, ok := <-w.out: // the Manager closed
		return w.result(ev, ok)
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-w.intr:
		select {
		case ev, ok := <-w.raw:
			w.fireRaw(ev, ok)
			return w.result(w.ev, true)
		default:
		}
		return w.interrupted()
	}
}

// interrupted reports a session interruption, unless the watch fired meanwhile (an event wins).
func (w *Watch) interrupted() (zk.Event, error) {
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
