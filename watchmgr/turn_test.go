package watchmgr

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// eventually polls cond until it holds, failing after bound: for states no event announces.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// A watch's first waiter reads go-zookeeper's channel without making the turn channels; a
// waiter or a forwarder that comes meanwhile makes them with the turn already taken, so only
// one goroutine ever reads the channel, and a closed channel is never taken for a closing
// (issue 27). When the first waiter returns, the turn is free again.
func TestFirstWaiterTakesTheTurnWithoutChannels(t *testing.T) {
	m := New(nil)
	defer func() { // bounded: a turn never given back would hold Close's forwarder forever
		closed := make(chan struct{})
		go func() { m.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(bound):
			t.Error("Close hung: a goroutine still waits for the turn")
		}
	}()
	raw := make(chan zk.Event, 1)
	w := m.Track(Data, "/t", raw)
	s := w.s
	results := make(chan zk.Event, 2)
	wait := func() {
		ev, err := w.Wait(context.Background())
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		results <- ev
	}
	go wait()
	eventually(t, "the first waiter holds the turn", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.reading
	})
	s.mu.Lock()
	made := s.turn != nil
	s.mu.Unlock()
	if made {
		t.Fatal("the first waiter made the turn channels")
	}
	go wait()
	evs := w.Events() // a forwarder: it must not read the channel either
	eventually(t, "a later waiter made the channels", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.turn != nil
	})
	if n := len(s.turn); n != 1 {
		t.Fatalf("the turn channel holds %d tokens while the first waiter reads, want 1", n)
	}
	raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/t"}
	close(raw) // as go-zookeeper does: a second reader would see it closed
	for i := range 2 {
		select {
		case ev := <-results:
			if ev.Type != zk.EventNodeDeleted {
				t.Fatalf("waiter %d saw %v, want the deletion", i, ev)
			}
		case <-time.After(bound):
			t.Fatalf("waiter %d never woke", i)
		}
	}
	select {
	case ev := <-evs:
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("Events saw %v, want the deletion", ev)
		}
	case <-time.After(bound):
		t.Fatal("Events never fired")
	}
	eventually(t, "the turn given back", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return !s.reading && len(s.turn) == 0
	})
}

// A Wait that finds the event in the channel, as a waiter called back by OnFire does, makes
// no channel and allocates nothing.
func TestWaitWithTheEventThereAllocatesNothing(t *testing.T) {
	m := New(nil)
	defer m.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 100
	ws := make([]*Watch, 0, n+1)
	for range n + 1 {
		raw := make(chan zk.Event, 1)
		ws = append(ws, m.Track(Data, "/w", raw))
		raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/w"}
		close(raw)
	}
	i := 0
	got := testing.AllocsPerRun(n, func() {
		if ev, err := ws[i].Wait(ctx); err != nil || ev.Type != zk.EventNodeDeleted {
			t.Fatalf("Wait = %v, %v", ev, err)
		}
		i++
	})
	if got > 0 {
		t.Errorf("Wait with the event there: %v allocations, want 0", got)
	}
}

// One to four waiters, an Events forwarder or none, waiters that leave and a disconnect, in
// random orders, then the event: whoever reads go-zookeeper's channel (by takeTurn or through
// the turn channel), every waiter that stays sees the event or the interruption, never a
// closing the Manager did not make, and nothing hangs (issue 27). Two waiters both holding the
// turn, or one taking it beside a forwarder, fail here.
func TestTurnStress(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 200
	}
	rng := rand.New(rand.NewPCG(23, 27))
	type result struct {
		ev  zk.Event
		err error
	}
	for round := range rounds {
		m := New(nil)
		raw := make(chan zk.Event, 1)
		w := m.Track(Data, "/s", raw)
		n := 1 + rng.IntN(4)
		results := make(chan result, n)
		cancels := make([]context.CancelFunc, n)
		for i := range n {
			ctx, cancel := context.WithCancel(context.Background())
			cancels[i] = cancel
			go func() {
				ev, err := w.Wait(ctx)
				results <- result{ev, err}
			}()
		}
		var evs <-chan zk.Event
		if rng.IntN(2) == 0 {
			evs = w.Events()
		}
		for i := range n {
			if rng.IntN(3) == 0 {
				cancels[i]()
			}
		}
		if rng.IntN(4) == 0 {
			m.Callback()(zk.Event{Type: zk.EventSession, State: zk.StateDisconnected})
		}
		raw <- zk.Event{Type: zk.EventNodeDeleted, Path: "/s"}
		close(raw)
		for range n {
			select {
			case r := <-results:
				switch {
				case r.err == nil && r.ev.Type == zk.EventNodeDeleted:
				case errors.Is(r.err, context.Canceled) && r.ev.Type == 0:
				case errors.Is(r.err, ErrSessionInterrupted) && r.ev.Type == 0:
				default:
					t.Fatalf("round %d: a waiter got %v, %v", round, r.ev, r.err)
				}
			case <-time.After(bound):
				t.Fatalf("round %d: a waiter never returned", round)
			}
		}
		if evs != nil {
			select {
			case ev := <-evs:
				if ev.Type != zk.EventNodeDeleted {
					t.Fatalf("round %d: Events got %v", round, ev)
				}
			case <-time.After(bound):
				t.Fatalf("round %d: Events never fired", round)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		if ev, err := w.Wait(ctx); err != nil || ev.Type != zk.EventNodeDeleted {
			t.Fatalf("round %d: a Wait after the event = %v, %v", round, ev, err)
		}
		cancel()
		for _, c := range cancels {
			c()
		}
		closed := make(chan struct{})
		go func() { m.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(bound):
			t.Fatalf("round %d: Close hung", round)
		}
	}
}
