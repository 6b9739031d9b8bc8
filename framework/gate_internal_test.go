package framework

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCloseGate(t *testing.T) {
	drained := func(g *closeGate) bool {
		select {
		case <-g.drained:
			return true
		default:
			return false
		}
	}
	tests := []struct {
		name        string
		run         func(g *closeGate) bool // the last enter's answer, where it matters
		wantEnter   bool
		wantDrained bool
	}{
		{"open, nothing in flight", func(g *closeGate) bool { return g.enter() }, true, false},
		{"shut with nothing in flight drains at once", func(g *closeGate) bool { g.shut(); return false }, false, true},
		{"shut refuses an enter", func(g *closeGate) bool { g.shut(); return g.enter() }, false, true},
		{"shut waits for the one in flight", func(g *closeGate) bool { g.enter(); g.shut(); return false }, false, false},
		{"the last exit drains", func(g *closeGate) bool {
			g.enter()
			g.enter()
			g.shut()
			g.exit()
			g.exit()
			return false
		}, false, true},
		{"a refused enter leaves the count alone", func(g *closeGate) bool { g.enter(); g.shut(); e := g.enter(); return e }, false, false},
	}
	for _, tt := range tests {
		g := newCloseGate()
		if got := tt.run(g); got != tt.wantEnter {
			t.Errorf("%s: enter = %v, want %v", tt.name, got, tt.wantEnter)
		}
		if got := drained(g); got != tt.wantDrained {
			t.Errorf("%s: drained = %v, want %v", tt.name, got, tt.wantDrained)
		}
	}
	g := newCloseGate()
	if !g.shut() || g.shut() {
		t.Error("shut twice: want true, then false")
	}
}

// Close's promise under a race: once wait returns, nothing that entered is still inside, and
// nothing enters any more. Goroutines enter and exit in a loop while the gate shuts.
func TestCloseGateUnderRace(t *testing.T) {
	for round := 0; round < 200; round++ {
		g := newCloseGate()
		var inside atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					if !g.enter() {
						return
					}
					inside.Add(1)
					inside.Add(-1)
					g.exit()
				}
			}()
		}
		if round%2 == 0 {
			time.Sleep(time.Duration(round%7) * time.Microsecond)
		}
		g.shut()
		done := make(chan struct{})
		go func() { g.wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: wait did not return", round)
		}
		if n := inside.Load(); n != 0 {
			t.Fatalf("round %d: %d still inside after wait", round, n)
		}
		if g.enter() {
			t.Fatalf("round %d: an enter after wait got in", round)
		}
		wg.Wait()
	}
}

// An exit without an enter panics, as a WaitGroup's negative count does, whether the gate is
// open or shut and drained: a count gone wrong would otherwise refuse every request, or open a
// shut gate again.
func TestCloseGateExitWithoutEnterPanics(t *testing.T) {
	for _, tt := range []struct {
		name string
		prep func(g *closeGate)
	}{
		{"open", func(g *closeGate) {}},
		{"open, after an enter and its exit", func(g *closeGate) { g.enter(); g.exit() }},
		{"shut and drained", func(g *closeGate) { g.shut() }},
	} {
		g := newCloseGate()
		tt.prep(g)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: an exit without an enter did not panic", tt.name)
				}
			}()
			g.exit()
		}()
	}
}
