package watchmgr

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

const bound = 5 * time.Second

func TestSubscribeOrderAndOnlySessionEvents(t *testing.T) {
	m := New(nil)
	defer m.Close()
	got := make(chan zk.State, 100)
	cancel := m.Subscribe(func(ev zk.Event) { got <- ev.State })
	defer cancel()
	cb := m.Callback()
	states := []zk.State{zk.StateConnecting, zk.StateConnected, zk.StateHasSession, zk.StateDisconnected}
	for i := 0; i < 50; i++ { // far more than go-zookeeper's 6 slots: nothing may drop
		for _, s := range states {
			cb(zk.Event{Type: zk.EventSession, State: s})
		}
		cb(zk.Event{Type: zk.EventNodeCreated, Path: "/x"})
	}
	for i := 0; i < 50*len(states); i++ {
		select {
		case s := <-got:
			if want := states[i%len(states)]; s != want {
				t.Fatalf("event %d: state %v, want %v", i, s, want)
			}
		case <-time.After(bound):
			t.Fatalf("event %d never dispatched", i)
		}
	}
}

// A watch notification reaches its waiter through the watch's channel; the callback must not queue
// it, or every notification would wake the dispatcher too.
func TestCallbackIgnoresWatchEvents(t *testing.T) {
	m := New(nil)
	defer m.Close()
	for _, typ := range []zk.EventType{zk.EventNodeCreated, zk.EventNodeDeleted, zk.EventNodeDataChanged, zk.EventNodeChildrenChanged, zk.EventNotWatching} {
		m.Callback()(zk.Event{Type: typ, Path: "/x"})
	}
	m.queue.mu.Lock()
	n := len(m.queue.items)
	m.queue.mu.Unlock()
	if n != 0 || len(m.queue.signal) != 0 {
		t.Fatalf("%d watch events queued (signal %d), want none", n, len(m.queue.signal))
	}
}

func TestCallbackNeverBlocks(t *testing.T) {
	m := New(nil)
	defer m.Close()
	release := make(chan struct{})
	m.Subscribe(func(zk.Event) { <-release }) // a stuck subscriber
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10000; i++ {
			m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateHasSession})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatal("callback blocked behind a slow subscriber")
	}
	close(release)
}

func TestCancelSubscription(t *testing.T) {
	m := New(nil)
	defer m.Close()
	a, b := make(chan struct{}, 10), make(chan struct{}, 10)
	cancelA := m.Subscribe(func(zk.Event) { a <- struct{}{} })
	m.Subscribe(func(zk.Event) { b <- struct{}{} })
	cancelA()
	cancelA()
	m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateHasSession})
	select {
	case <-b:
	case <-time.After(bound):
		t.Fatal("b not called")
	}
	if len(a) != 0 {
		t.Fatal("cancelled subscriber called")
	}
}

func TestWatchLifecycle(t *testing.T) {
	tests := []struct {
		name    string
		ev      zk.Event
		close   bool
		wantErr error
	}{
		{"fired", zk.Event{Type: zk.EventNodeDeleted, Path: "/a"}, false, nil},
		{"expired", zk.Event{Type: zk.EventNotWatching, Path: "/a", Err: zk.ErrSessionExpired}, false, zk.ErrSessionExpired},
		{"closed-channel", zk.Event{}, true, zk.ErrClosing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(nil)
			defer m.Close()
			raw := make(chan zk.Event, 1)
			w := m.Track(Data, "/a", raw)
			if m.Live() != 1 {
				t.Fatalf("Live = %d, want 1", m.Live())
			}
			if tt.close {
				close(raw)
			} else {
				raw <- tt.ev
				close(raw)
			}
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			ev, err := w.Wait(ctx)
			if tt.wantErr == nil {
				if err != nil || ev.Type != tt.ev.Type {
					t.Fatalf("Wait = %v, %v", ev, err)
				}
			} else if !errors.Is(err, ErrSessionInterrupted) || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Wait err = %v, want interrupted + %v", err, tt.wantErr)
			}
			// A second Wait sees the same outcome.
			ev2, err2 := w.Wait(ctx)
			if ev2.Type != ev.Type || (err2 == nil) != (err == nil) {
				t.Fatalf("second Wait = %v, %v", ev2, err2)
			}
			waitLive(t, m, 0)
		})
	}
}

func TestWaitContextAndInterrupt(t *testing.T) {
	m := New(nil)
	defer m.Close()
	raw := make(chan zk.Event, 1)
	w := m.Track(Children, "/b", raw)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on cancelled ctx = %v", err)
	}
	m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
	ctx2, cancel2 := context.WithTimeout(context.Background(), bound)
	defer cancel2()
	if _, err := w.Wait(ctx2); !errors.Is(err, ErrSessionInterrupted) {
		t.Fatalf("Wait after disconnect = %v", err)
	}
	// Still live: go-zookeeper keeps the watch across a disconnect.
	if m.Live() != 1 {
		t.Fatalf("Live = %d, want 1", m.Live())
	}
	// A watch tracked after the disconnect is not interrupted by it.
	w2 := m.Track(Children, "/b", make(chan zk.Event, 1))
	select {
	case <-w2.Interrupted():
		t.Fatal("new watch interrupted by an earlier disconnect")
	default:
	}
	m.Close()
	waitLive(t, m, 0)
	if _, err := w2.Wait(context.Background()); !errors.Is(err, ErrSessionInterrupted) {
		t.Fatalf("Wait after Close = %v", err)
	}
}

func TestCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	m := New(nil)
	for i := 0; i < 10; i++ {
		m.Track(Exists, "/c", make(chan zk.Event, 1))
	}
	m.Close()
	m.Close()
	deadline := time.Now().Add(bound)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d after Close", before, runtime.NumGoroutine())
		}
		time.Sleep(10 * time.Millisecond)
	}
	w := m.Track(Data, "/d", make(chan zk.Event, 1))
	if _, err := w.Wait(context.Background()); !errors.Is(err, ErrSessionInterrupted) {
		t.Fatalf("Track after Close: Wait = %v", err)
	}
}

func waitLive(t *testing.T, m *Manager, want int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for m.Live() != want {
		if time.Now().After(deadline) {
			t.Fatalf("Live = %d, want %d", m.Live(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A waiter reads go-zookeeper's channel itself while it waits; when it gives
// up, it gives the turn back: an event that comes later still ends the
// watch's count and reaches Events. Concurrent waiters all see the event,
// and a waiter holding the channel when the Manager closes is released.
func TestWaiterHandsTheChannelBack(t *testing.T) {
	m := New(nil)
	defer m.Close()
	raw := make(chan zk.Event, 1)
	w := m.Track(Data, "/c", raw)
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := w.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want deadline exceeded", err)
	}
	raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/c"}
	close(raw)
	waitLive(t, m, 0) // nobody waits now: the event sitting in the channel ends the count
	select {
	case ev := <-w.Events():
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("Events = %v", ev)
		}
	case <-time.After(bound):
		t.Fatal("Events never fired")
	}

	raw2 := make(chan zk.Event, 1)
	w2 := m.Track(Data, "/d", raw2)
	results := make(chan zk.Event, 3)
	for i := 0; i < 3; i++ {
		go func() {
			ev, err := w2.Wait(context.Background())
			if err != nil {
				t.Errorf("Wait: %v", err)
			}
			results <- ev
		}()
	}
	raw2 <- zk.Event{Type: zk.EventNodeDataChanged, Path: "/d"}
	close(raw2)
	for i := 0; i < 3; i++ {
		select {
		case ev := <-results:
			if ev.Type != zk.EventNodeDataChanged {
				t.Fatalf("waiter %d saw %v", i, ev)
			}
		case <-time.After(bound):
			t.Fatalf("waiter %d never woke", i)
		}
	}
	waitLive(t, m, 0)

	w3 := m.Track(Data, "/e", make(chan zk.Event, 1))
	done := make(chan error, 1)
	go func() {
		_, err := w3.Wait(context.Background())
		done <- err
	}()
	m.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrSessionInterrupted) { // Close interrupts; the closing event may win the race
			t.Fatalf("Wait across Close = %v", err)
		}
	case <-time.After(bound):
		t.Fatal("a waiter holding the channel was not released by Close")
	}
	waitLive(t, m, 0)
}

// Tracking starts no goroutine; a watch whose event sits unread in go-zookeeper's channel is no
// longer live; and the set of tracked watches is pruned as they fire, so it stays bounded.
func TestTrackCostsNoGoroutineAndStaysBounded(t *testing.T) {
	m := New(nil)
	defer m.Close()
	before := runtime.NumGoroutine()
	raws := make([]chan zk.Event, 1000)
	for i := range raws {
		raws[i] = make(chan zk.Event, 1)
		m.Track(Data, "/w", raws[i])
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after tracking %d watches, %d before", n, len(raws), before)
	}
	if n := m.Live(); n != len(raws) {
		t.Fatalf("Live = %d, want %d", n, len(raws))
	}
	for _, raw := range raws[:900] {
		raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/w"}
		close(raw)
	}
	if n := m.Live(); n != 100 {
		t.Fatalf("Live = %d after 900 events nobody read, want 100", n)
	}
	for i := 0; i < 2*minPrune; i++ {
		raw := make(chan zk.Event, 1)
		m.Track(Data, "/x", raw)
		raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/x"}
		close(raw)
	}
	m.mu.Lock()
	size := m.tracked.Len()
	m.mu.Unlock()
	if size > 100+2*minPrune {
		t.Fatalf("tracked set holds %d watches, want it pruned to about the 100 live ones", size)
	}
}

// Events keeps forwarding across a session interruption: the watch is still set on the server.
func TestEventsOutlivesInterruption(t *testing.T) {
	m := New(nil)
	defer m.Close()
	raw := make(chan zk.Event, 1)
	w := m.Track(Children, "/e", raw)
	events := w.Events()
	m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
	select {
	case <-w.Interrupted():
	case <-time.After(bound):
		t.Fatal("not interrupted")
	}
	raw <- zk.Event{Type: zk.EventNodeChildrenChanged, Path: "/e"}
	close(raw)
	select {
	case ev := <-events:
		if ev.Type != zk.EventNodeChildrenChanged {
			t.Fatalf("Events = %v", ev)
		}
	case <-time.After(bound):
		t.Fatal("Events never delivered the event after an interruption")
	}
	waitLive(t, m, 0)
}

// An event already delivered wins over an interruption that came after it, even when no waiter was
// reading the channel at the time.
func TestDeliveredEventWinsOverInterruption(t *testing.T) {
	for i := 0; i < 100; i++ { // Wait's select picks at random among ready cases
		m := New(nil)
		raw := make(chan zk.Event, 1)
		w := m.Track(Data, "/r", raw)
		raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/r"}
		close(raw)
		m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
		select {
		case <-w.Interrupted():
		case <-time.After(bound):
			t.Fatal("not interrupted")
		}
		ev, err := w.Wait(context.Background())
		if err != nil || ev.Type != zk.EventNodeDeleted {
			t.Fatalf("round %d: Wait = %v, %v; want the delivered event", i, ev, err)
		}
		m.Close()
	}
}

// Fired is one context per go-zookeeper watch: Watches sharing it get the same context, read by
// one goroutine whatever their number, ended when the watch fires (or at once if it had), and
// not by a session interruption.
func TestFiredIsSharedAndCostsOneGoroutine(t *testing.T) {
	m := New(nil)
	defer m.Close()
	raw := make(chan zk.Event, 1)
	first := m.Track(Data, "/f", raw)
	before := runtime.NumGoroutine()
	ctxs := make([]context.Context, 500)
	for i := range ctxs {
		w, r, err := m.Reserve(context.Background(), Data, "/f")
		if err != nil || r != nil {
			t.Fatalf("Reserve %d: a registration (%v), want the live watch shared", i, err)
		}
		ctxs[i] = w.Fired()
	}
	if n := runtime.NumGoroutine(); n > before+1 {
		t.Fatalf("%d goroutines after 500 Fired calls on one watch, %d before", n, before)
	}
	if ctxs[0] != ctxs[499] || ctxs[0] != first.Fired() {
		t.Fatal("Watches sharing one go-zookeeper watch have different Fired contexts")
	}
	m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
	select {
	case <-ctxs[0].Done():
		t.Fatal("Fired ended at a disconnect; the watch is still set")
	case <-first.Interrupted():
	}
	raw <- zk.Event{Type: zk.EventNodeDataChanged, Path: "/f"}
	close(raw)
	for i, ctx := range ctxs {
		select {
		case <-ctx.Done():
		case <-time.After(bound):
			t.Fatalf("Fired %d did not end when the watch fired", i)
		}
	}
	if first.Fired().Err() == nil {
		t.Fatal("Fired of a watch that has fired is not done")
	}
	late := m.Track(Data, "/g", make(chan zk.Event, 1))
	ctx := late.Fired()
	m.Close()
	if ctx.Err() == nil {
		t.Fatal("Fired did not end at Close")
	}
}

// A lock's watches fire soon after they are set, one after another: the tracked set then stays
// as short as the live watches plus the one just fired, at every Track, not only after a full
// prune (the map it replaced grew to 64 before each walk). A long-lived watch at the front does
// not stop it.
func TestTrackedSetStaysShortBetweenPrunes(t *testing.T) {
	m := New(nil)
	defer m.Close()
	m.Track(Data, "/held", make(chan zk.Event, 1)) // lives throughout, oldest
	var prev chan zk.Event
	for i := range 1000 {
		raw := make(chan zk.Event, 1)
		m.Track(Data, "/w", raw)
		if prev != nil {
			prev <- zk.Event{Type: zk.EventNodeDeleted, Path: "/w"}
			close(prev)
		}
		prev = raw
		m.mu.Lock()
		size := m.tracked.Len()
		m.mu.Unlock()
		if size > 4 {
			t.Fatalf("after %d Tracks the tracked set holds %d watches; 2 are live", i+1, size)
		}
	}
	if n := m.Live(); n != 2 {
		t.Fatalf("Live = %d, want 2", n)
	}
}
