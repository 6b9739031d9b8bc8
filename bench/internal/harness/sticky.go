package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// The scenarios of issue 28 (sticky leases) that are not a or b: affinity (s2) and the
// alternation of two sessions on one lock (s3, s4). s1 is runUncontended; s5 is in readmostly.go.

// affinityPick chooses the path index of one acquisition of session i: with probability own% one
// of the session's own share (paths i*share .. i*share+share-1, share = paths/sessions), else one
// of the other paths, uniformly. Pure, for the unit test.
func affinityPick(rng *rand.Rand, i, sessions, paths, ownPct int) int {
	share := paths / sessions
	if rng.IntN(100) < ownPct {
		return i*share + rng.IntN(share)
	}
	k := rng.IntN(paths - share)
	if k >= i*share {
		k += share
	}
	return k
}

// runAffinity (s2): Sessions sessions, one worker each, over Paths paths; each session has its
// own share of the paths and takes OwnPercent of its acquisitions there, the rest on the others'
// paths. Every path has its own holder check. The rate is every acquisition over the window.
func runAffinity(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, sc.Sessions)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	guards := make([]guard, sc.Paths)
	cycles := make([][]cycleFunc, len(ss))
	for i, s := range ss {
		cycles[i] = make([]cycleFunc, sc.Paths)
		for k := range sc.Paths {
			l, err := s.Mutex(fmt.Sprintf("%s/lock-%d", sc.Root, k))
			if err != nil {
				return Result{}, err
			}
			cycles[i][k] = lockCycle(l, &guards[k], 1, 1)
		}
	}
	counts, w := make([]atomic.Int64, len(ss)), newWorkers(ctx)
	for i := range ss {
		rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
		w.start(func(ctx context.Context) error {
			if err := cycles[i][affinityPick(rng, i, sc.Sessions, sc.Paths, sc.OwnPercent)](ctx); err != nil {
				return err
			}
			counts[i].Add(1)
			return nil
		})
	}
	before, after, secs, cpu := w.window(sc.Warmup, sc.Duration, counts)
	if err := w.stop(ss); err != nil {
		return Result{}, err
	}
	var violations int64
	for i := range guards {
		violations += guards[i].violations.Load()
	}
	return loopResult(sc, before, after, secs, cpu, sumCounts(counts), violations, w), nil
}

// loopResult is the Result of a loop scenario from its window's counts.
func loopResult(sc Scenario, before, after []int64, secs float64, cpu, totalAll, violations int64, w *workers) Result {
	per := make([]int64, len(after))
	var total int64
	for i := range per {
		per[i] = after[i] - before[i]
		total += per[i]
	}
	lo, hi := minMax(per)
	return Result{Sessions: sc.Sessions, Cycles: total, TotalCycles: totalAll, Seconds: secs,
		CyclesPerSec: float64(total) / secs, MinPerClient: lo, MaxPerClient: hi, Violations: violations,
		CPUUsPerOp: float64(cpu) / 1e3 / float64(max(total, 1)), Extra: w.allocs.perOp(total)}
}

// runAlternate (s3, s4): two sessions take turns on one path, strictly: in its turn a session
// acquires and releases Burst times, then the other session takes its turn, so the first
// acquisition of every turn finds the lock last used, and released, by the other session (with a
// sticky lock: idle there; s3's Burst of 3 makes it a node that session re-used, as in an
// affinity pattern, so the adaptive off-switch keeps caching). Hold is an idle time before each
// turn (s3: the lock lies idle at the other session; s4, ping-pong: none, Burst 1). P50Ms and
// P99Ms are the first acquire call of each turn in the window; the rate counts every acquisition.
// The turns are taken by one goroutine, so no two acquisitions overlap by construction; the
// holder check is there as in every scenario.
func runAlternate(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	ss, err := connectAll(ctx, connect, servers, 2)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(ss)
	var ls [2]Locker
	for i := range ls {
		if ls[i], err = ss[i].Mutex(sc.Root + "/lock"); err != nil {
			return Result{}, err
		}
	}
	var g guard
	var total, inWin int64
	cycle := func(l Locker) (time.Duration, error) {
		t0 := time.Now()
		if err := l.Acquire(ctx); err != nil {
			return 0, err
		}
		d := time.Since(t0)
		g.enter(1, 1)
		g.leave(1)
		total++
		return d, l.Release(ctx)
	}
	turn := func(i int) (time.Duration, error) {
		if sc.Hold > 0 {
			time.Sleep(sc.Hold) // the lock lies idle: a measured interval, not synchronisation
		}
		before := total
		first, err := cycle(ls[i])
		for k := 1; k < sc.Burst && err == nil; k++ {
			_, err = cycle(ls[i])
		}
		inWin += total - before
		return first, err
	}
	for start, i := time.Now(), 0; time.Since(start) < sc.Warmup || i < 2; i++ {
		if _, err := turn(i % 2); err != nil {
			return Result{}, fmt.Errorf("warm-up: %w", err)
		}
	}
	lat := make([]time.Duration, 0, 4096)
	inWin = 0
	cpu0, start := cpuTime(), time.Now()
	for i := 0; time.Since(start) < sc.Duration; i++ {
		d, err := turn(i % 2)
		if err != nil {
			return Result{}, err
		}
		lat = append(lat, d)
	}
	secs, n := time.Since(start).Seconds(), inWin
	return Result{Sessions: 2, Cycles: n, TotalCycles: total, Seconds: secs, CyclesPerSec: float64(n) / secs,
		P50Ms: percentileMs(lat, 0.5), P99Ms: percentileMs(lat, 0.99), Violations: g.violations.Load(),
		CPUUsPerOp: cpuPerOp(cpu0, cpuTime(), n)}, nil
}
