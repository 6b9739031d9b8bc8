package framework

import (
	"runtime"
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

// busy runs n pieces of work at once through run (a pool's run, or a Framework's Go) and returns
// when all have finished.
func busy(t *testing.T, run func(func()), n int) {
	t.Helper()
	var started, finish sync.WaitGroup
	finishing := make(chan struct{})
	started.Add(n)
	finish.Add(n)
	for range n {
		run(func() {
			started.Done()
			<-finishing
			finish.Done()
		})
	}
	started.Wait()
	close(finishing)
	finish.Wait()
}

// Warm goroutines are reused, bounded in number, and end after an idle time: the pool saves
// goroutine starts per request (issue 27) and leaks nothing.
func TestWorkersReuseBoundAndEnd(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         int
		wantIdle  int
		wantAlive int32 // after the idle time
	}{
		{"one reused, then ends when idle", 1, 1, 0},
		{"three reused, then end when idle", 3, 3, 0},
		{"at most maxIdleWorkers stay warm", maxIdleWorkers + 4, maxIdleWorkers, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &workers{}
			busy(t, p.run, tc.n)
			waitFor(t, "workers parked", func() bool { return p.idleCount() == tc.wantIdle })
			waitFor(t, "workers beyond the workersBound ended", func() bool { return p.alive.Load() == int32(tc.wantIdle) })
			busy(t, p.run, 1) // handed to a warm worker: no new one
			if a := p.alive.Load(); a != int32(tc.wantIdle) {
				t.Fatalf("%d workers alive after one more piece of work, want %d (reused)", a, tc.wantIdle)
			}
			waitFor(t, "workers ended", func() bool { return p.alive.Load() == tc.wantAlive })
		})
	}
}

// The warm goroutines are bounded per process, not per Framework: a process with many sessions
// (e's depth rows spread waiters over 100 Frameworks) parks at most maxIdleWorkers in all, so
// that parked workers never add up to one per waiter.
func TestWorkersBoundedPerProcess(t *testing.T) {
	base := runtime.NumGoroutine()
	for range 4 {
		f := &Framework{} // Go needs no connection
		busy(t, f.Go, maxIdleWorkers)
	}
	// Every piece of work has returned: the workers beyond the bound end at once, the parked ones
	// only after workerIdle, so look well before that.
	var extra int
	for deadline := time.Now().Add(workerIdle * 4 / 5); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if extra = runtime.NumGoroutine() - base; extra <= maxIdleWorkers {
			return
		}
	}
	t.Fatalf("%d goroutines left after 4 Frameworks' work, want at most %d parked in the process", extra, maxIdleWorkers)
}
