package watchmgr

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

func reserve(t *testing.T, m *Manager, kind Kind, path string) (*Watch, *Registration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	w, r, err := m.Reserve(ctx, kind, path)
	if err != nil {
		t.Fatalf("Reserve: %v", err)
	}
	return w, r
}

// One go-zookeeper watch per kind and path: later Reserve calls share it, with their own
// interruption channel and Events channel, until it fires or a session expiry invalidates it.
func TestReserveShares(t *testing.T) {
	m := New(nil)
	defer m.Close()
	w0, r0 := reserve(t, m, Data, "/a")
	if w0 != nil || r0 == nil {
		t.Fatal("first Reserve must hand out a registration")
	}
	// The registration is pending: a second caller waits until it ends (here: ctx).
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := m.Reserve(short, Data, "/a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Reserve during a registration = %v, want it to wait", err)
	}
	r0.Cancel() // the watching request failed
	_, r := reserve(t, m, Data, "/a")
	raw := make(chan zk.Event, 1)
	first := r.Track(raw)
	m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
	second, r2 := reserve(t, m, Data, "/a")
	if second == nil || r2 != nil {
		t.Fatal("a live watch was not shared")
	}
	if other, _ := reserve(t, m, Children, "/a"); other != nil {
		t.Fatal("a watch of another kind was shared")
	}
	select {
	case <-second.Interrupted():
		t.Fatal("a sharer made after the disconnect reports it")
	default:
	}
	if m.Live() != 1 {
		t.Fatalf("Live = %d, want 1", m.Live())
	}
	evA, evB := first.Events(), second.Events()
	raw <- zk.Event{Type: zk.EventNodeDataChanged, Path: "/a"}
	close(raw)
	for i, ch := range []<-chan zk.Event{evA, evB} {
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDataChanged {
				t.Fatalf("Events %d = %v", i, ev)
			}
		case <-time.After(bound):
			t.Fatalf("Events %d never fired", i)
		}
	}
	if w, _ := reserve(t, m, Data, "/a"); w != nil {
		t.Fatal("a fired watch was shared")
	}
}

func TestReserveAfterExpiryAndCancel(t *testing.T) {
	m := New(nil)
	defer m.Close()
	_, r := reserve(t, m, Exists, "/b")
	r.Track(make(chan zk.Event, 1))
	m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateExpired})
	w, r := reserve(t, m, Exists, "/b")
	if w != nil {
		t.Fatal("a watch of an expired session was shared")
	}
	r.Cancel()
	r.Cancel()
	if _, r := reserve(t, m, Exists, "/b"); r == nil {
		t.Fatal("Cancel did not free the reservation")
	}
}

// Reserve calls waiting on one registration all share the watch it tracks.
func TestReserveWaitersShareTheRegisteredWatch(t *testing.T) {
	m := New(nil)
	defer m.Close()
	_, r := reserve(t, m, Children, "/c")
	got := make(chan *Watch, 5)
	for i := 0; i < 5; i++ {
		go func() {
			w, _, err := m.Reserve(context.Background(), Children, "/c")
			if err != nil || w == nil {
				t.Errorf("waiting Reserve = %v, %v", w, err)
			}
			got <- w
		}()
	}
	r.Track(make(chan zk.Event, 1))
	for i := 0; i < 5; i++ {
		select {
		case <-got:
		case <-time.After(bound):
			t.Fatal("a waiting Reserve never returned")
		}
	}
	if m.Live() != 1 {
		t.Fatalf("Live = %d, want 1", m.Live())
	}
}

// A reservation and the watch its Track makes are one allocation, its wake channel is made
// only for a Reserve that waits, and the watch's channels only for a goroutine that waits on
// it (issue 27): a registration nobody waits for costs the Registration alone.
func TestRegistrationAllocations(t *testing.T) {
	m := New(nil)
	defer m.Close()
	ctx := context.Background()
	got := testing.AllocsPerRun(100, func() {
		_, r, err := m.Reserve(ctx, Data, "/allocs")
		if err != nil {
			t.Fatal(err)
		}
		r.Track(nil) // untracked: no map entry, so the count is the registration's alone
	})
	if got > 1 {
		t.Errorf("Reserve and Track: %v allocations, want at most 1", got)
	}
}

// A path leaves the books once nothing of it is left: no registration in progress, no watch
// that may still be live. Otherwise the books would grow with every node a lock ever waited on.
func TestBooksForgetEveryPath(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, m *Manager)
	}{
		{"cancelled registration", func(t *testing.T, m *Manager) {
			_, r := reserve(t, m, Data, "/a")
			r.Cancel()
		}},
		{"registration tracked with no channel", func(t *testing.T, m *Manager) {
			_, r := reserve(t, m, Exists, "/a")
			r.Track(nil)
		}},
		{"fired watch, event read", func(t *testing.T, m *Manager) {
			_, r := reserve(t, m, Data, "/a")
			raw := make(chan zk.Event, 1)
			w := r.Track(raw)
			raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
			if _, err := w.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}},
		{"fired watch, event never read", func(t *testing.T, m *Manager) {
			raw := make(chan zk.Event, 1)
			m.Track(Children, "/a", raw)
			raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
		}},
		{"early event, then tracked and fired", func(t *testing.T, m *Manager) {
			_, r := reserve(t, m, Data, "/a")
			m.NodeEvent(zk.EventNodeDeleted, "/a")
			raw := make(chan zk.Event, 1)
			r.Track(raw)
			raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
		}},
		{"early event, then cancelled", func(t *testing.T, m *Manager) {
			_, r := reserve(t, m, Data, "/a")
			m.NodeEvent(zk.EventNodeDeleted, "/a")
			r.Cancel()
		}},
		{"three kinds on one path", func(t *testing.T, m *Manager) {
			for _, k := range []Kind{Data, Exists, Children} {
				_, r := reserve(t, m, k, "/a")
				raw := make(chan zk.Event, 1)
				r.Track(raw)
				raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
			}
		}},
		{"a kind go-zookeeper cannot set", func(t *testing.T, m *Manager) {
			if w, r, err := m.Reserve(context.Background(), Kind(7), "/a"); !errors.Is(err, ErrUnknownKind) || w != nil || r != nil {
				t.Fatalf("Reserve of Kind(7) = %v, %v, %v; want ErrUnknownKind", w, r, err)
			}
			raw := make(chan zk.Event, 1)
			m.Track(Kind(7), "/a", raw) // tracked and counted, never in the books
			raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(nil)
			defer m.Close()
			tc.end(t, m)
			if n := m.Live(); n != 0 { // Live prunes what fired
				t.Fatalf("Live = %d, want 0", n)
			}
			if m.Resending() {
				t.Fatal("Resending with nothing set or in progress")
			}
			m.mu.Lock()
			n := len(m.paths)
			m.mu.Unlock()
			if n != 0 {
				t.Fatalf("%d paths left in the books, want 0", n)
			}
		})
	}
}
