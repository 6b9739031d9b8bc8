package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// s5 with its 8 sticky readers in a separate process (the helper below) and the sticky writer
// alone in this one, as readers and writer would be deployed: the readers' loops then load the
// CPU and their own process's scheduler, not the writer's. Beside it, in the same round, s5-w
// alone and s5 as the scenario runs it (all 9 sessions in this process). Run with
//
//	ZKRECIPES_BENCH_DIAG=1 go test -count=1 -v -run TestDiagS5ReadersElsewhere ./bench/

// TestDiagS5ReadersHelper is the readers' process; it does nothing in a normal run. Its
// environment says "connect string|lock path|pause"; it reads until its stdin closes (at most a
// minute), then prints "reads N".
func TestDiagS5ReadersHelper(t *testing.T) {
	spec := os.Getenv("ZKRECIPES_DIAG_READERS")
	if spec == "" {
		t.Skip("the readers' helper process of TestDiagS5ReadersElsewhere")
	}
	parts := strings.Split(spec, "|")
	pause, err := time.ParseDuration(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := helperContext()
	defer cancel()
	var reads atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < diagSpinners; i++ {
		s, err := connectSticky(ctx, parts[0])
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		l, err := s.ReadLock(parts[1])
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if l.Acquire(ctx) != nil || l.Release(context.Background()) != nil {
					return
				}
				reads.Add(1)
				time.Sleep(pause) // the reader's other work (0: none)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("reads %d\n", reads.Load())
}

// readersElsewhere starts the helper's readers on lock path p and returns a stop that ends them
// and returns how many reads they made.
func readersElsewhere(t *testing.T, srv *server, p string, pause time.Duration) func() int64 {
	cmd, in := helperProcess(t, "TestDiagS5ReadersHelper", "ZKRECIPES_DIAG_READERS="+srv.connect+"|"+p+"|"+pause.String())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() int64 {
		in.Close()
		var n int64
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "reads "); ok {
				n, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		if err := cmd.Wait(); err != nil {
			t.Logf("readers' helper: %v", err)
		}
		return n
	}
}

// soloWriter times n write acquires of a sticky writer on p, one every 100 ms, and returns their p50.
func soloWriter(t *testing.T, srv *server, p string, n int) float64 {
	ctx := context.Background()
	s, err := connectSticky(ctx, srv.connect)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.WriteLock(p)
	if err != nil {
		t.Fatal(err)
	}
	var lat []time.Duration
	for i := 0; i < n; i++ {
		time.Sleep(100 * time.Millisecond) // the writer's pace, as s5's
		t0 := time.Now()
		if err := w.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		if err := w.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return median(lat)
}

func median(ds []time.Duration) float64 {
	c := append([]time.Duration(nil), ds...)
	for i := range c { // insertion sort: a few dozen samples
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	return float64(c[len(c)/2].Microseconds()) / 1e3
}

func TestDiagS5ReadersElsewhere(t *testing.T) {
	srv := diagServer(t)
	for round := 0; round < 2; round++ {
		sc := s5wScenario(fmt.Sprintf("/diag/s5e-w-%d", round))
		before := serverLatency(t, srv)
		r, err := harness.RunScenario(context.Background(), diagConnect(false, diagSession{}), srv.connect, sc)
		alone := r.P50Ms
		t.Logf("round %d, s5-w alone: p50 %.2f ms; err %v; %s", round, alone, err, latencyDelta(before, serverLatency(t, srv)))
		for _, pause := range []time.Duration{0, 500 * time.Microsecond} {
			p := fmt.Sprintf("/diag/s5e-%d-%v/rw", round, pause)
			before := serverLatency(t, srv)
			stop := readersElsewhere(t, srv, p, pause)
			time.Sleep(500 * time.Millisecond) // the readers' warm-up: a measured interval
			t0 := time.Now()
			w := soloWriter(t, srv, p, 20)
			secs := time.Since(t0).Seconds()
			reads := stop()
			t.Logf("round %d, readers in another process, pause %v: writer p50 %.2f ms (%.2fx s5-w alone), readers' reads/s about %.0f; %s",
				round, pause, w, w/max(alone, 1e-9), float64(reads)/(secs+0.5), latencyDelta(before, serverLatency(t, srv)))
		}
		sc = s5Scenario(fmt.Sprintf("/diag/s5e-in-%d", round), 2*time.Second)
		before = serverLatency(t, srv)
		r, err = harness.RunScenario(context.Background(), diagConnect(true, diagSession{}), srv.connect, sc)
		t.Logf("round %d, s5 sticky as the scenario (readers in this process, spinning): writer p50 %.2f ms (%.2fx s5-w alone), reads/s %.0f; err %v; %s",
			round, r.P50Ms, r.P50Ms/max(alone, 1e-9), r.CyclesPerSec, err, latencyDelta(before, serverLatency(t, srv)))
	}
}
