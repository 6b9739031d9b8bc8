package framework

import (
	"sync"
	"testing"
	"time"
)

// workersBound bounds each wait of these tests.
const workersBound = 10 * time.Second

// waitFor polls cond, a state of the pool that no event announces, for at most workersBound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(workersBound); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, workersBound)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *workers) idleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// busy runs n pieces of work on p at once and returns when all have finished and parked.
func busy(t *testing.T, p *workers, n int) {
	t.Helper()
	var started, finish sync.WaitGroup
	finishing := make(chan struct{})
	started.Add(n)
	finish.Add(n)
	for range n {
		p.run(func() {
			started.Done()
			<-finishing
			finish.Done()
		})
	}
	started.Wait()
	close(finishing)
	finish.Wait()
}

// A Framework's warm goroutines are reused, bounded in number, end after an idle time, and end
// at Close: the pool saves goroutine starts per request (issue 27) and leaks nothing.
func TestWorkersReuseBoundAndEnd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		wantIdle  int
		close     bool
		wantAlive int32 // after the idle time (or Close)
	}{
		{"one reused, then ends when idle", 1, 1, false, 0},
		{"three end at Close", 3, 3, true, 0},
		{"at most maxIdleWorkers stay warm", maxIdleWorkers + 4, maxIdleWorkers, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &workers{}
			busy(t, p, tc.n)
			waitFor(t, "workers parked", func() bool { return p.idleCount() == tc.wantIdle })
			waitFor(t, "workers beyond the workersBound ended", func() bool { return p.alive.Load() == int32(tc.wantIdle) })
			busy(t, p, 1) // handed to a warm worker: no new one
			if a := p.alive.Load(); a != int32(tc.wantIdle) {
				t.Fatalf("%d workers alive after one more piece of work, want %d (reused)", a, tc.wantIdle)
			}
			if tc.close {
				p.close()
				busy(t, p, 1) // after Close the work still runs, and its goroutine ends
			}
			waitFor(t, "workers ended", func() bool { return p.alive.Load() == tc.wantAlive })
		})
	}
}

// A sweep that fires after Close (its timer had fired as Close stopped it) finds nothing to end
// and returns: it must not hand a nil to a channel no worker reads, holding the pool's lock.
func TestWorkersSweepAfterClose(t *testing.T) {
	p := &workers{}
	busy(t, p, 3)
	waitFor(t, "workers parked", func() bool { return p.idleCount() == 3 })
	p.close()
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		p.sweepIdle()
	}()
	select {
	case <-swept:
	case <-time.After(workersBound):
		t.Fatal("a sweep after Close did not return")
	}
	busy(t, p, 1) // the pool still runs work after Close, on a goroutine that then ends
	waitFor(t, "workers ended", func() bool { return p.alive.Load() == 0 })
}
