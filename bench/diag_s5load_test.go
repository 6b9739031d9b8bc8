package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// The diagnostic behind docs/performance.md "Session 11: s5, the writer among spinning readers,
// priced": does the sticky writer of s5 wait for its protocol, or for the load its spinning
// readers make? In one run, against one server, it times
//
//   - s5-w (an uncontended non-sticky write lock's acquire+release) alone, with 8 goroutines of this
//     process spinning on runtime.Gosched (no lock: CPU and the Go scheduler's run queues, as the
//     sticky readers' local grants load them), and with 8 such spinners in a separate process (CPU
//     alone: this process's scheduler idles, so its network poller runs as usual);
//   - s5 with sticky readers that spin (the scenario), and that sleep 50 µs and 500 µs after each
//     read (a reader that does a little non-CPU work between reads);
//
// each with the server's own mean time per read and write (mntr). Rotated twice. Run with
//
//	ZKRECIPES_BENCH_DIAG=1 go test -count=1 -v -run TestDiagS5Load ./bench/

// diagSpinners is how many goroutines spin, in this process or in the helper process.
const diagSpinners = 8

// diagLoad is one background load: started before a measurement, stopped after it.
type diagLoad struct {
	name  string
	start func(t *testing.T) (stop func())
}

func diagLoads() []diagLoad {
	return []diagLoad{
		{"none", func(*testing.T) func() { return func() {} }},
		{"8 spinners, same process", spinInProcess},
		{"8 spinners, other process", spinInHelper},
	}
}

// spinInProcess starts diagSpinners goroutines that loop on runtime.Gosched until stopped: the
// CPU and run-queue load of 8 sticky readers' local grants, with no lock and no request.
func spinInProcess(*testing.T) func() { return spin(diagSpinners) }

// spin starts n goroutines that loop on runtime.Gosched; the func it returns stops them and
// waits for them.
func spin(n int) func() {
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				runtime.Gosched()
			}
		}()
	}
	return func() { stop.Store(true); wg.Wait() }
}

// spinInHelper runs the test binary again as TestDiagSpinHelper: diagSpinners spinning goroutines
// in a process of their own, until its stdin closes (at most a minute). Stopping closes stdin and
// waits for it.
func spinInHelper(t *testing.T) func() {
	cmd, in := helperProcess(t, "TestDiagSpinHelper", "ZKRECIPES_DIAG_SPIN_HELPER="+strconv.Itoa(diagSpinners))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() // the helper we started, by its handle
			<-done
		}
	}
}

// TestDiagSpinHelper is the helper process of spinInHelper; it does nothing in a normal run.
func TestDiagSpinHelper(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("ZKRECIPES_DIAG_SPIN_HELPER"))
	if n <= 0 {
		t.Skip("the spinning helper process of TestDiagS5Load")
	}
	ctx, cancel := helperContext()
	defer cancel()
	stop := spin(n)
	<-ctx.Done()
	stop()
}

// TestDiagS5Load: s5-w under each load, then s5 sticky with each reader pause, twice.
func TestDiagS5Load(t *testing.T) {
	srv := diagServer(t)
	for round := 0; round < 2; round++ {
		var alone float64
		for i, ld := range diagLoads() {
			sc := s5wScenario(fmt.Sprintf("/diag/s5w-%d-%d", round, i))
			stop := ld.start(t)
			before := serverLatency(t, srv)
			r, err := harness.RunScenario(context.Background(), diagConnect(false, diagSession{}), srv.connect, sc)
			lat := latencyDelta(before, serverLatency(t, srv))
			stop()
			if i == 0 {
				alone = r.P50Ms
			}
			t.Logf("round %d, s5-w, load %q: p50 %.2f ms (%.2fx alone), acquire p50 %.2f ms, p99 %.2f ms, %.0f cycles/s; err %v; %s",
				round, ld.name, r.P50Ms, r.P50Ms/max(alone, 1e-9), r.Extra["acquire_p50_ms"], r.P99Ms, r.CyclesPerSec, err, lat)
		}
		for _, pause := range []time.Duration{0, 50 * time.Microsecond, 500 * time.Microsecond} {
			sc := s5Scenario(fmt.Sprintf("/diag/s5l-%d-%v", round, pause), 2*time.Second)
			before := serverLatency(t, srv)
			r, err := harness.RunScenario(context.Background(), diagConnect(true, diagSession{pause: pause}), srv.connect, sc)
			t.Logf("round %d, s5 sticky, reader pause %v: writer p50 %.2f ms (%.2fx s5-w alone), p99 %.2f ms, %v writes, reads/s %.0f; err %v; %s",
				round, pause, r.P50Ms, r.P50Ms/max(alone, 1e-9), r.P99Ms, r.Extra["writes"], r.CyclesPerSec, err,
				latencyDelta(before, serverLatency(t, srv)))
		}
	}
}
