package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/trace"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The diagnostics behind docs/performance.md "Sticky leases": they log figures and assert
// nothing (speed is measured, not tested). Run with
//
//	ZKRECIPES_BENCH_DIAG=1 go test -count=1 -v -run TestDiagSticky ./bench/

func diagServer(t *testing.T) *server {
	t.Helper()
	if os.Getenv("ZKRECIPES_BENCH_DIAG") == "" {
		t.Skip("a diagnostic: set ZKRECIPES_BENCH_DIAG=1")
	}
	srv, err := startServer(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.close)
	return srv
}

// diagSession wraps a zkrecipes session (sticky or not): its mutexes record every acquire's
// duration, and its readers pause after each release.
type diagSession struct {
	*zkrSession
	mu    *sync.Mutex
	rec   *[]time.Duration
	pause time.Duration
}

type diagLocker struct {
	harness.Locker
	s diagSession
}

func (l diagLocker) Acquire(ctx context.Context) error {
	t0 := time.Now()
	err := l.Locker.Acquire(ctx)
	if l.s.rec != nil {
		l.s.mu.Lock()
		*l.s.rec = append(*l.s.rec, time.Since(t0))
		l.s.mu.Unlock()
	}
	return err
}

func (l diagLocker) Release(ctx context.Context) error {
	err := l.Locker.Release(ctx)
	time.Sleep(l.s.pause) // the reader's other work between reads (0: none)
	return err
}

func (s diagSession) Mutex(p string) (harness.Locker, error) {
	l, err := s.zkrSession.Mutex(p)
	return diagLocker{l, s}, err
}

func (s diagSession) ReadLock(p string) (harness.Locker, error) {
	l, err := s.zkrSession.ReadLock(p)
	return diagLocker{l, s}, err
}

func diagConnect(sticky bool, d diagSession) harness.Connector {
	return func(ctx context.Context, servers string) (harness.Session, error) {
		s, err := connectZkrecipes(ctx, servers)
		if err != nil {
			return nil, err
		}
		if sticky {
			s.(*zkrSession).lockOpts = []recipes.LockOption{recipes.WithSticky(0)}
		}
		d.zkrSession = s.(*zkrSession)
		return d, nil
	}
}

// s2: where the time of an affinity run goes: the share of acquisitions slower than 200 µs
// (not a local re-grant) and their latency, sticky and not, twice each, alternating.
func TestDiagStickyS2(t *testing.T) {
	srv := diagServer(t)
	for i, sticky := range []bool{false, true, false, true} {
		var rec []time.Duration
		d := diagSession{mu: &sync.Mutex{}, rec: &rec}
		sc := harness.Scenario{Kind: harness.Affinity, Root: fmt.Sprintf("/diag/s2-%d", i), Sessions: 8, Paths: 64,
			OwnPercent: 90, Warmup: 500 * time.Millisecond, Duration: 3 * time.Second}
		r, err := harness.RunScenario(context.Background(), diagConnect(sticky, d), srv.connect, sc)
		d.mu.Lock()
		var slow []time.Duration
		var sum, slowSum time.Duration
		for _, x := range rec {
			sum += x
			if x > 200*time.Microsecond {
				slow, slowSum = append(slow, x), slowSum+x
			}
		}
		d.mu.Unlock()
		sort.Slice(slow, func(i, j int) bool { return slow[i] < slow[j] })
		q := func(f float64) time.Duration {
			if len(slow) == 0 {
				return 0
			}
			return slow[int(f*float64(len(slow)-1))]
		}
		t.Logf("sticky=%v: acq/s %.0f; slow acquires %.1f%%, mean %v, p50 %v, p99 %v, %.0f%% of the acquire time; err %v",
			sticky, r.CyclesPerSec, 100*float64(len(slow))/float64(max(len(rec), 1)), slowSum/time.Duration(max(len(slow), 1)),
			q(0.5), q(0.99), 100*float64(slowSum)/float64(max(sum, 1)), err)
	}
}

// s5: the writer's acquire with readers that spin (the scenario) and with readers that pause
// 500 µs after each read, sticky and not, twice each.
func TestDiagStickyS5(t *testing.T) {
	srv := diagServer(t)
	for i, sticky := range []bool{false, true, false, true} {
		for _, pause := range []time.Duration{0, 500 * time.Microsecond} {
			sc := s5Scenario(fmt.Sprintf("/diag/s5-%d-%v", i, pause), 3*time.Second)
			before := serverLatency(t, srv)
			r, err := harness.RunScenario(context.Background(), diagConnect(sticky, diagSession{pause: pause}), srv.connect, sc)
			t.Logf("sticky=%v pause=%v: reads/s %.0f, writer p50 %.2f ms, p99 %.2f ms, %v writes; err %v; %s",
				sticky, pause, r.CyclesPerSec, r.P50Ms, r.P99Ms, r.Extra["writes"], err, latencyDelta(before, serverLatency(t, srv)))
		}
	}
}

// s5 under runtime/trace: one sticky run with spinning readers, its execution trace written to
// $ZKRECIPES_BENCH_TRACE (default zkrecipes-s5.trace in the system's temp dir, kept; logged). Read it with
// `go tool trace -pprof=sched FILE` (where runnable goroutines waited for a P) or the trace UI.
func TestDiagStickyS5Trace(t *testing.T) {
	srv := diagServer(t)
	out := os.Getenv("ZKRECIPES_BENCH_TRACE")
	if out == "" {
		out = filepath.Join(os.TempDir(), "zkrecipes-s5.trace")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := s5Scenario("/diag/s5-trace", 2*time.Second)
	before := serverLatency(t, srv)
	if err := trace.Start(f); err != nil {
		t.Fatal(err)
	}
	r, err := harness.RunScenario(context.Background(), diagConnect(true, diagSession{}), srv.connect, sc)
	trace.Stop()
	t.Logf("trace %s: reads/s %.0f, writer p50 %.2f ms, p99 %.2f ms, %v writes; err %v; %s",
		out, r.CyclesPerSec, r.P50Ms, r.P99Ms, r.Extra["writes"], err, latencyDelta(before, serverLatency(t, srv)))
}

// latencyDelta says the server's own mean time per read and per write (request in, reply out)
// between two mntr snapshots.
func latencyDelta(before, after map[string]float64) string {
	var b strings.Builder
	b.WriteString("server's own time:")
	for _, k := range []string{"readlatency", "updatelatency"} {
		n := after["zk_cnt_"+k] - before["zk_cnt_"+k]
		fmt.Fprintf(&b, " %s %.0f requests mean %.2f ms;", k, n, (after["zk_sum_"+k]-before["zk_sum_"+k])/max(n, 1))
	}
	return b.String()
}

// serverLatency reads the server's latency summaries (mntr: zk_cnt_* and zk_sum_*, in ms).
func serverLatency(t *testing.T, srv *server) map[string]float64 {
	out, err := zktest.FourLetter(context.Background(), srv.first, "mntr")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, l := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(l), "\t")
		if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			m[strings.TrimSpace(k)] = x
		}
	}
	return m
}
