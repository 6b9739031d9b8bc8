package watchmgr

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
)

// ErrUnknownKind is returned by Reserve for a Kind that go-zookeeper cannot set.
var ErrUnknownKind = errors.New("watchmgr: unknown watch kind")

// Registration is the right, handed out by Reserve, to register the one go-zookeeper watch of a
// (kind, path). Its owner must end it with Track or Cancel; until then other Reserve calls for the
// same kind and path wait. Safe for concurrent use.
type Registration struct {
	m    *Manager
	kind Kind
	path string
	intr <-chan struct{}
	once sync.Once
	wake chan struct{} // made by the first Reserve that waits for it (m.mu guards); closed at its end
	e    *pathBooks    // its path's entry while it is in progress, nil otherwise (m.mu guards)
	// first is the watch its Track makes, and spare the path's entry should it make one,
	// allocated with it: one allocation for the reservation, the watch it becomes and the
	// books of a path not yet watched (issue 27).
	first struct {
		w Watch
		s zkWatch
	}
	spare pathBooks
}

// Reserve returns a Watch that shares the live go-zookeeper watch of (kind, path) in the current
// session, if there is one: the caller then reads with the plain request (no new watch) and waits
// on the Watch. Otherwise it returns a Registration: the caller sends the watching request and
// calls Track with go-zookeeper's channel, or Cancel if the request failed. While another caller
// registers the same kind and path, Reserve waits for it, until ctx ends (ctx.Err()). A watch
// invalidated by a session expiry is never shared, nor one whose event NodeEvent was told of
// (that event is for a change before the caller's read). Either way the Watch's Interrupted
// channel is taken now. After Close it returns a Registration whose Track yields a closed watch.
// A Kind other than Data, Exists and Children is refused with ErrUnknownKind.
func (m *Manager) Reserve(ctx context.Context, kind Kind, path string) (*Watch, *Registration, error) {
	k := kind.slot()
	if k < 0 {
		return nil, nil, fmt.Errorf("%w: %v", ErrUnknownKind, kind)
	}
	for {
		m.mu.Lock()
		var other *Registration
		if e := m.paths[path]; e != nil && !m.closed {
			if s := e.live[k]; s != nil && s.gen == m.gen && !s.notified && !s.ended() {
				w := &Watch{s: s, intr: m.intr}
				m.mu.Unlock()
				return w, nil, nil
			}
			other = e.pend[k]
		}
		if other == nil {
			r := &Registration{m: m, kind: kind, path: path, intr: m.intr}
			if !m.closed {
				r.e = m.books(path, &r.spare)
				r.e.pend[k] = r
				m.npend++
			}
			m.mu.Unlock()
			return nil, r, nil
		}
		if other.wake == nil {
			other.wake = make(chan struct{})
		}
		wait, intr := other.wake, m.intr
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-m.quit: // closing: register unshared, Track yields a closed watch
			return nil, &Registration{m: m, kind: kind, path: path, intr: intr}, nil
		}
	}
}

// Track registers go-zookeeper's channel as the watch of the reserved kind and path (see
// Manager.Track) and lets waiting Reserve calls share it. Once only: later calls, or a call
// after Cancel, track a watch that is not shared.
func (r *Registration) Track(ch <-chan zk.Event) *Watch { return r.TrackOn(ch, nil) }

// TrackOn is Track for a watch whose setting request and reply both rode conn (origin.go).
func (r *Registration) TrackOn(ch <-chan zk.Event, conn any) *Watch {
	var w *Watch
	r.once.Do(func() {
		w = r.m.trackInto(&r.first.w, &r.first.s, r.kind, r.path, ch, r.intr, conn, r)
		if r.wake != nil { // read after trackInto's unlock: no Reserve can find r any more
			close(r.wake)
		}
	})
	if w == nil {
		w = r.m.track(r.kind, r.path, ch, r.intr, conn)
	}
	return w
}

// Cancel gives the reservation up (the watching request failed); idempotent, and a no-op after
// Track.
func (r *Registration) Cancel() { r.once.Do(r.release) }

// release ends the reservation and wakes the Reserve calls waiting for it.
func (r *Registration) release() {
	r.m.mu.Lock()
	r.unpend()
	wake := r.wake
	r.m.mu.Unlock()
	if wake != nil {
		close(wake)
	}
}

// unpend ends the reservation in the Manager's books, with any early event kept for it; m.mu
// is held.
func (r *Registration) unpend() {
	e := r.e
	if e == nil {
		return
	}
	r.e = nil
	k := r.kind.slot()
	e.pend[k], e.early[k] = nil, false
	r.m.npend--
	r.m.dropIfIdle(r.path, e)
}

// booksOrNil returns the entry r holds while in progress; nil for a nil r or one that holds
// none. m.mu is held.
func (r *Registration) booksOrNil() *pathBooks {
	if r == nil {
		return nil
	}
	return r.e
}
