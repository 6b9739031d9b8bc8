package watchmgr

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"
)

// OnFire calls back once on the watch's news, never on another path's or kind's, and not
// after stop; news already there is reported at once instead (now), including an event that
// came while the watch was still being registered.
func TestOnFire(t *testing.T) {
	deleted := func(m *Manager) { m.NodeEvent(zk.EventNodeDeleted, "/a") }
	for _, tc := range []struct {
		name     string
		kind     Kind
		early    bool           // the event comes between the watching read's reply and Track
		news     func(*Manager) // what happens after OnFire
		stop     bool           // stop before the news
		want     int            // callbacks run
		wantNow  bool           // OnFire reports news already there
		wantType zk.EventType   // the event type the callback gets (0: a zero Event)
	}{
		{name: "deleted node fires a data watch", kind: Data, news: deleted, want: 1, wantType: zk.EventNodeDeleted},
		{name: "children change fires a children watch", kind: Children, news: func(m *Manager) { m.NodeEvent(zk.EventNodeChildrenChanged, "/a") }, want: 1, wantType: zk.EventNodeChildrenChanged},
		{name: "data change does not fire a children watch", kind: Children, news: func(m *Manager) { m.NodeEvent(zk.EventNodeDataChanged, "/a") }, want: 0},
		{name: "another path does not fire", kind: Data, news: func(m *Manager) { m.NodeEvent(zk.EventNodeDeleted, "/b") }, want: 0},
		{name: "invalidation fires", kind: Exists, news: func(m *Manager) { m.NodeEvent(zk.EventNotWatching, "/a") }, want: 1, wantType: zk.EventNotWatching},
		{name: "disconnect fires", kind: Data, news: func(m *Manager) {
			m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
		}, want: 1},
		{name: "close fires", kind: Data, news: func(m *Manager) { m.Close() }, want: 1},
		{name: "stopped does not fire", kind: Data, stop: true, news: deleted, want: 0},
		{name: "event before Track is news at once", kind: Data, early: true, wantNow: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(nil)
			defer m.Close()
			raw := make(chan zk.Event, 1)
			_, reg, err := m.Reserve(context.Background(), tc.kind, "/a")
			if err != nil || reg == nil {
				t.Fatalf("Reserve = %v, %v", reg, err)
			}
			if tc.early {
				m.NodeEvent(zk.EventNodeDeleted, "/a")
			}
			w := reg.Track(raw)
			m.mu.Lock()
			var early [numKinds]bool
			if e := m.paths["/a"]; e != nil {
				early = e.early
			}
			m.mu.Unlock()
			if early != ([numKinds]bool{}) { // Track took the early event: nothing is kept for later Tracks
				t.Fatalf("early events left after Track: %v", early)
			}
			calls, got := 0, zk.Event{}
			stop, now := w.OnFire(func(ev zk.Event) { calls, got = calls+1, ev })
			if now != tc.wantNow {
				t.Fatalf("OnFire now = %v, want %v", now, tc.wantNow)
			}
			if now {
				return
			}
			if tc.stop && !stop.Stop() {
				t.Fatal("stop before any news = false, want true")
			}
			tc.news(m)
			tc.news(m) // a second piece of news runs nothing more
			if calls != tc.want {
				t.Fatalf("%d callbacks, want %d", calls, tc.want)
			}
			if tc.want == 1 && got.Type != tc.wantType {
				t.Fatalf("the callback got %+v, want type %v", got, tc.wantType)
			}
			if tc.want == 1 && stop.Stop() {
				t.Fatal("stop after the callback = true, want false")
			}
			m.mu.Lock()
			left := m.hooks.Len()
			m.mu.Unlock()
			wantLeft := 0 // fired or stopped: nothing is kept
			if tc.want == 0 && !tc.stop {
				wantLeft = 1 // still waiting for its news
			}
			if left != wantLeft {
				t.Fatalf("%d registrations left, want %d", left, wantLeft)
			}
		})
	}
}

// A Watch's first registration is carried in it, and never handed out twice: a Stop of an
// earlier registration, late, must not remove a later one, or that one's news would be lost.
func TestOnFireStaleStop(t *testing.T) {
	m := New(nil)
	defer m.Close()
	_, reg := reserve(t, m, Data, "/a")
	w := reg.Track(make(chan zk.Event, 1))
	first, now := w.OnFire(func(zk.Event) {})
	if now || !first.Stop() {
		t.Fatal("the first registration was not made, or not stopped")
	}
	calls := 0
	second, now := w.OnFire(func(zk.Event) { calls++ })
	if now || second == first {
		t.Fatalf("second registration: now %v, same hook %v", now, second == first)
	}
	if first.Stop() {
		t.Fatal("a stale Stop removed something")
	}
	m.NodeEvent(zk.EventNodeDeleted, "/a")
	if calls != 1 {
		t.Fatalf("%d callbacks after the event, want 1", calls)
	}
	if allocs := testing.AllocsPerRun(50, func() {
		_, r, _ := m.Reserve(context.Background(), Data, "/b")
		raw := make(chan zk.Event, 1)
		w := r.Track(raw)
		h, _ := w.OnFire(func(zk.Event) {})
		h.Stop()
		m.NodeEvent(zk.EventNodeDeleted, "/b")
		raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/b"}
		m.Live()
	}); allocs > 3 { // the Registration (with its watch, hook and books); the test's channel and callback
		t.Fatalf("%v allocations per watch, want at most 3", allocs)
	}
}

// OnEvent waits across a disconnect, which OnFire reports: the watch is still set. An expiry
// invalidates it (the hook hears it at the expiry's state event, before go-zookeeper reports
// each path) and the Manager's end ends it.
func TestOnEvent(t *testing.T) {
	session := func(state zk.State) func(*Manager) {
		return func(m *Manager) { m.Callback()(zk.Event{Type: zk.EventSession, State: state}) }
	}
	for _, tc := range []struct {
		name     string
		news     func(*Manager)
		want     int
		wantType zk.EventType
	}{
		{"deleted node", func(m *Manager) { m.NodeEvent(zk.EventNodeDeleted, "/a") }, 1, zk.EventNodeDeleted},
		{"data change", func(m *Manager) { m.NodeEvent(zk.EventNodeDataChanged, "/a") }, 1, zk.EventNodeDataChanged},
		{"disconnect is no news", session(zk.StateDisconnected), 0, 0},
		{"expiry invalidates", session(zk.StateExpired), 1, zk.EventNotWatching},
		{"close", func(m *Manager) { m.Close() }, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(nil)
			defer m.Close()
			_, reg := reserve(t, m, Data, "/a")
			w := reg.Track(make(chan zk.Event, 1))
			calls, got := 0, zk.Event{}
			h, now := w.OnEvent(func(ev zk.Event) { calls, got = calls+1, ev })
			if now {
				t.Fatal("news before any")
			}
			tc.news(m)
			tc.news(m)
			if calls != tc.want {
				t.Fatalf("%d callbacks, want %d", calls, tc.want)
			}
			if tc.want == 1 && got.Type != tc.wantType {
				t.Fatalf("the callback got %+v, want type %v", got, tc.wantType)
			}
			if stopped := h.Stop(); stopped != (tc.want == 0) {
				t.Fatalf("Stop after the news = %v, want %v", stopped, tc.want == 0)
			}
			if tc.want == 0 { // still registered across the disconnect, and the watch still reports
				if _, now := w.OnEvent(func(zk.Event) {}); now {
					t.Fatal("OnEvent after a disconnect reports news")
				}
				if _, now := w.OnFire(func(zk.Event) {}); !now {
					t.Fatal("OnFire after a disconnect does not report it")
				}
			}
		})
	}
}

// A watch whose event NodeEvent was told of is not shared: its event, still on its way to the
// channel, is for a change made before the new reader's read.
func TestReserveSkipsNotifiedWatch(t *testing.T) {
	m := New(nil)
	defer m.Close()
	_, r := reserve(t, m, Data, "/a")
	r.Track(make(chan zk.Event, 1))
	m.NodeEvent(zk.EventNodeDataChanged, "/a")
	if w, r2 := reserve(t, m, Data, "/a"); w != nil || r2 == nil {
		t.Fatal("a watch with its event on the way was shared")
	}
}
