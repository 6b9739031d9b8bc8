package framework

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ranWithin waits at most 10 s for ch to close and reports whether it did.
func ranWithin(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

// TestAfterEnd checks Session.AfterEnd against context.AfterFunc's contract, which it replaces
// for held nodes: fn runs once when the epoch ends, on a goroutine of its own (it may call back
// into the session), at once when the epoch has ended, never after a Stop that returned true.
func TestAfterEnd(t *testing.T) {
	t.Run("runs at the end, off the ending goroutine", func(t *testing.T) {
		s := newSession(1, nil)
		var h EndHook
		ran := make(chan struct{})
		s.AfterEnd(&h, func() {
			if s.Err() == nil { // takes s.mu: would deadlock if run under end's lock
				t.Error("fn ran while the epoch lived")
			}
			close(ran)
		})
		s.end(ErrSuspended)
		if !ranWithin(ran) {
			t.Fatal("fn did not run after the epoch ended")
		}
		if h.Stop() {
			t.Error("Stop after fn started reported that it stopped it")
		}
	})
	t.Run("ended already: runs at once", func(t *testing.T) {
		s := newSession(1, nil)
		s.end(ErrSessionLost)
		var h EndHook
		ran := make(chan struct{})
		s.AfterEnd(&h, func() { close(ran) })
		if !ranWithin(ran) {
			t.Fatal("fn did not run on an ended epoch")
		}
	})
	t.Run("past the deadline: checked first", func(t *testing.T) {
		s := newSession(1, nil)
		s.check = func(s *Session) { s.end(ErrSuspended) } // the deadline has passed
		var h EndHook
		ran := make(chan struct{})
		s.AfterEnd(&h, func() { close(ran) })
		if !ranWithin(ran) {
			t.Fatal("fn did not run on an epoch past its deadline")
		}
	})
	t.Run("stopped: never runs", func(t *testing.T) {
		s := newSession(1, nil)
		hooks := make([]EndHook, 5)
		var ran [5]atomic.Bool
		done := make(chan struct{}, len(hooks))
		for i := range hooks {
			s.AfterEnd(&hooks[i], func() { ran[i].Store(true); done <- struct{}{} })
		}
		for _, i := range []int{4, 2, 0} { // the head, a middle one, the tail of the list
			if !hooks[i].Stop() {
				t.Fatalf("Stop of live hook %d reported false", i)
			}
			if hooks[i].Stop() {
				t.Fatalf("second Stop of hook %d reported true", i)
			}
		}
		s.end(ErrSuspended)
		for range 2 {
			if !ranWithin(done) {
				t.Fatal("a hook left running did not run")
			}
		}
		for i := range hooks {
			if want := i == 1 || i == 3; ran[i].Load() != want {
				t.Errorf("hook %d ran: %v, want %v", i, ran[i].Load(), want)
			}
		}
		// A stopped hook can be tied again, to a new epoch.
		s2 := newSession(2, nil)
		again := make(chan struct{})
		s2.AfterEnd(&hooks[0], func() { close(again) })
		s2.end(ErrSuspended)
		if !ranWithin(again) {
			t.Fatal("a reused hook did not run")
		}
	})
}

// TestAfterEndRacesEnd stops hooks while the epoch ends: each fn runs exactly when its Stop
// reported false. Run with -race.
func TestAfterEndRacesEnd(t *testing.T) {
	for range 200 {
		s := newSession(1, nil)
		const n = 8
		hooks := make([]EndHook, n)
		var runs [n]atomic.Int32
		var wg sync.WaitGroup
		for i := range hooks {
			wg.Add(1)
			s.AfterEnd(&hooks[i], func() { runs[i].Add(1); wg.Done() })
		}
		stopped := make([]bool, n)
		var sw sync.WaitGroup
		for i := range hooks {
			sw.Go(func() {
				if stopped[i] = hooks[i].Stop(); stopped[i] {
					wg.Done()
				}
			})
		}
		s.end(ErrSuspended)
		sw.Wait()
		all := make(chan struct{})
		go func() { wg.Wait(); close(all) }()
		if !ranWithin(all) {
			t.Fatal("a hook whose Stop reported false did not run within 10 s")
		}
		for i := range hooks {
			if got, want := runs[i].Load(), int32(1); stopped[i] {
				if got != 0 {
					t.Fatalf("hook %d ran after its Stop returned true", i)
				}
			} else if got != want {
				t.Fatalf("hook %d ran %d times", i, got)
			}
		}
	}
}

// TestAfterEndAllocatesNothing: tying a hook to an epoch and untying it costs no allocation
// (context.AfterFunc on the session's context, which newNode used before, costs an afterFunc
// context and a children-map entry per held node: issue 27).
func TestAfterEndAllocatesNothing(t *testing.T) {
	s := newSession(1, nil)
	var h EndHook
	fn := func() {}
	if n := testing.AllocsPerRun(1000, func() {
		s.AfterEnd(&h, fn)
		h.Stop()
	}); n != 0 {
		t.Errorf("AfterEnd+Stop: %v allocations, want 0", n)
	}
}
