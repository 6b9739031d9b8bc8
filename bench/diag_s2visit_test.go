package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// s2, one acquisition at a time (docs/performance.md "Session 12"): every acquire and release
// of the sticky affinity run, classed as an owner's local grant, an owner's non-local acquisition
// (after a visit took its node) or a visit, with each session's traced ZooKeeper operations on
// the lock's path inside it, so that a visit's acquire splits into the create+listing, the watch
// on the node ahead, the wait for the owner's reaction (the owner's own delete of its idle node
// timed apart), the own-node check, and the release. Logs figures, asserts nothing. Run with
//
//	ZKRECIPES_BENCH_DIAG=1 go test -count=1 -v -run TestDiagS2Visits ./bench/

// s2op is one traced operation of a session: its name, path, and when it ended and took.
type s2op struct {
	name, path string
	end        time.Time
	dur        time.Duration
}

// s2acq is one acquisition: the session, the lock's index, the acquire's and the release's spans.
type s2acq struct {
	sess, lock     int
	t0, t1, t2, t3 time.Time // acquire start, end; release start, end
}

// s2rec collects the run's operations (per session) and acquisitions.
type s2rec struct {
	mu      sync.Mutex
	ops     [][]s2op
	acqs    []s2acq
	mutexes int // Mutex calls so far: the harness makes a session's 64 in a row, so /64 is its index
}

type s2locker struct {
	harness.Locker
	r          *s2rec
	sess, lock int
	a          s2acq
}

func (l *s2locker) Acquire(ctx context.Context) error {
	l.a = s2acq{sess: l.sess, lock: l.lock, t0: time.Now()}
	err := l.Locker.Acquire(ctx)
	l.a.t1 = time.Now()
	return err
}

func (l *s2locker) Release(ctx context.Context) error {
	l.a.t2 = time.Now()
	err := l.Locker.Release(ctx)
	l.a.t3 = time.Now()
	l.r.mu.Lock()
	l.r.acqs = append(l.r.acqs, l.a)
	l.r.mu.Unlock()
	return err
}

type s2session struct {
	*zkrSession
	r *s2rec
}

func (s s2session) Mutex(p string) (harness.Locker, error) {
	l, err := s.zkrSession.Mutex(p)
	s.r.mu.Lock()
	sess := s.r.mutexes / 64
	s.r.mutexes++
	s.r.mu.Unlock()
	k, _ := strconv.Atoi(p[strings.LastIndex(p, "-")+1:])
	return &s2locker{Locker: l, r: s.r, sess: sess, lock: k}, err
}

func s2connect(r *s2rec) harness.Connector {
	var mu sync.Mutex
	return func(ctx context.Context, servers string) (harness.Session, error) {
		mu.Lock()
		i := len(r.ops)
		r.ops = append(r.ops, nil)
		mu.Unlock()
		s, err := connectZkrecipes(ctx, servers, framework.WithTracer(func(tr framework.Trace) {
			if tr.Kind != framework.TraceOperation {
				return
			}
			r.mu.Lock()
			r.ops[i] = append(r.ops[i], s2op{tr.Name, tr.Path, time.Now(), tr.Duration})
			r.mu.Unlock()
		}))
		if err != nil {
			return nil, err
		}
		s.(*zkrSession).lockOpts = []recipes.LockOption{recipes.WithSticky(0)}
		return s2session{s.(*zkrSession), r}, nil
	}
}

// s2stat accumulates durations by label.
type s2stat map[string][]time.Duration

func (m s2stat) add(k string, d time.Duration) { m[k] = append(m[k], d) }

func (m s2stat) line(k string) string {
	xs := m[k]
	if len(xs) == 0 {
		return k + ": none"
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	var sum time.Duration
	for _, x := range xs {
		sum += x
	}
	return fmt.Sprintf("%-34s n %6d  mean %8.3f ms  p50 %8.3f ms  p90 %8.3f ms  sum %7.2f s", k, len(xs),
		float64(sum/time.Duration(len(xs)))/1e6, float64(xs[len(xs)/2])/1e6, float64(xs[len(xs)*9/10])/1e6, sum.Seconds())
}

func TestDiagS2Visits(t *testing.T) {
	srv := diagServer(t)
	for round := range 2 {
		r := &s2rec{}
		sc := harness.Scenario{Kind: harness.Affinity, Root: fmt.Sprintf("/diag/s2v-%d", round), Sessions: 8, Paths: 64,
			OwnPercent: 90, Warmup: 500 * time.Millisecond, Duration: 3 * time.Second}
		before := serverLatency(t, srv)
		res, err := harness.RunScenario(context.Background(), s2connect(r), srv.connect, sc)
		t.Logf("round %d: acq/s %.0f, err %v; %s", round, res.CyclesPerSec, err, latencyDelta(before, serverLatency(t, srv)))
		s2report(t, r, sc.Root)
	}
}

// s2report classes r's acquisitions and splits each visit's acquire by the visitor's operations.
func s2report(t *testing.T, r *s2rec, root string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := s2stat{}
	for _, a := range r.acqs {
		own := a.lock/8 == a.sess
		acq, rel := a.t1.Sub(a.t0), a.t3.Sub(a.t2)
		switch {
		case own && acq < 200*time.Microsecond:
			m.add("own local: acquire", acq)
			m.add("own local: release", rel)
			continue
		case own:
			m.add("own non-local: acquire", acq)
			m.add("own non-local: release", rel)
		default:
			m.add("visit: acquire", acq)
			m.add("visit: release", rel)
		}
		pre := fmt.Sprintf("%s/lock-%d", root, a.lock)
		var ops time.Duration
		var gets int
		queued := false
		for _, o := range r.ops[a.sess] {
			if !strings.HasPrefix(o.path, pre+"/") && o.path != pre || o.end.Before(a.t0) || o.end.After(a.t3) {
				continue
			}
			in := "acquire"
			if !o.end.Before(a.t2) {
				in = "release"
			}
			name := o.name
			if o.name == "getDataW" && in == "acquire" && !own {
				gets++
				name = fmt.Sprintf("getDataW #%d", gets) // 1: the node ahead, 2: our own (the check)
			}
			kind := "visit"
			if own {
				kind = "own non-local"
			}
			m.add(fmt.Sprintf("%s: %s %s", kind, in, name), o.dur)
			if in == "acquire" && o.name != "getChildren" { // the listing rides behind the create (createAndList)
				ops += o.dur
			}
			if own && in == "acquire" && o.name == "getDataW" {
				queued = true
			}
		}
		if own {
			m.add(fmt.Sprintf("own non-local: acquire (queued %v)", queued), acq)
			m.add(fmt.Sprintf("own non-local: release (queued %v)", queued), rel)
		} else {
			m.add("visit: acquire outside requests", acq-ops)
			owner := a.lock / 8
			for _, o := range r.ops[owner] {
				if o.name == "delete" && strings.HasPrefix(o.path, pre+"/") && o.end.After(a.t0) && o.end.Before(a.t1) {
					m.add("visit: the owner's delete", o.dur)
				}
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Log(m.line(k))
	}
}
