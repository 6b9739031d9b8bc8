package watchmgr

import (
	"context"
	"sync"

	"github.com/go-zookeeper/zk"
)

// watchKey names the go-zookeeper watch a Reserve may share.
type watchKey struct {
	kind Kind
	path string
}

// Registration is the right, handed out by Reserve, to register the one go-zookeeper watch of a
// (kind, path). Its owner must end it with Track or Cancel; until then other Reserve calls for the
// same kind and path wait. Safe for concurrent use.
type Registration struct {
	m    *Manager
	key  watchKey
	intr <-chan struct{}
	once sync.Once
	wake chan struct{} // made by the first Reserve that waits for it (m.mu guards); closed at its end
	// first is the watch its Track makes, allocated with it: one allocation for the
	// reservation and the watch it becomes (issue 27).
	first struct {
		w Watch
		s zkWatch
	}
}

// Reserve returns a Watch that shares the live go-zookeeper watch of (kind, path) in the current
// session, if there is one: the caller then reads with the plain request (no new watch) and waits
// on the Watch. Otherwise it returns a Registration: the caller sends the watching request and
// calls Track with go-zookeeper's channel, or Cancel if the request failed. While another caller
// registers the same kind and path, Reserve waits for it, until ctx ends (ctx.Err()). A watch
// invalidated by a session expiry is never shared. Either way the Watch's Interrupted channel is
// taken now. After Close it returns a Registration whose Track yields a closed watch.
func (m *Manager) Reserve(ctx context.Context, kind Kind, path string) (*Watch, *Registration, error) {
	key := watchKey{kind, path}
	for {
		m.mu.Lock()
		if s := m.byKey[key]; !m.closed && s != nil && s.gen == m.gen && !s.ended() {
			w := &Watch{s: s, intr: m.intr}
			m.mu.Unlock()
			return w, nil, nil
		}
		other := m.pending[key]
		if other == nil || m.closed {
			r := &Registration{m: m, key: key, intr: m.intr}
			if !m.closed {
				m.pending[key] = r
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
			return nil, &Registration{m: m, key: key, intr: intr}, nil
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
		w = r.m.trackInto(&r.first.w, &r.first.s, r.key.kind, r.key.path, ch, r.intr, conn, r)
		if r.wake != nil { // read after trackInto's unlock: no Reserve can find r any more
			close(r.wake)
		}
	})
	if w == nil {
		w = r.m.track(r.key.kind, r.key.path, ch, r.intr, conn)
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

// unpend ends the reservation in the Manager's books; m.mu is held.
func (r *Registration) unpend() {
	if r.m.pending[r.key] == r {
		delete(r.m.pending, r.key)
		if r.m.early != nil {
			r.m.forgetEarly(r.key)
		}
	}
}

// forgetEarly drops key from the early events, and the map once it is empty, so that the
// common case (no event ever beat its registration) never touches it; m.mu is held.
func (m *Manager) forgetEarly(key watchKey) {
	delete(m.early, key)
	if len(m.early) == 0 {
		m.early = nil
	}
}
