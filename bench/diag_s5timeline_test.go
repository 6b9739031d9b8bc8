package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/framework"
)

// s5's writer, request by request: every framework operation of the 9 sessions (the tracer)
// and every write acquire, so that each write's critical path can be read off: when the
// writer's create+listing, its watch on the node ahead and its re-listings ended, and when the
// readers' listings and deletes (their reaction to the directory watch) ended, relative to the
// acquire's start. Sticky readers, spinning and pausing 500 µs. Run with
//
//	ZKRECIPES_BENCH_DIAG=1 go test -count=1 -v -run TestDiagS5Timeline ./bench/

// tlOp is one traced operation of session idx, from its start to its end.
type tlOp struct {
	idx        int
	name       string
	start, end time.Time
}

// tlRec collects the run's operations and the writer's acquires.
type tlRec struct {
	mu     sync.Mutex
	ops    []tlOp
	writes [][2]time.Time
	writer atomic.Int64 // the writer's session index + 1
	next   atomic.Int64
}

func (r *tlRec) connect(ctx context.Context, servers string) (harness.Session, error) {
	idx := int(r.next.Add(1))
	tr := framework.WithTracer(func(t framework.Trace) {
		if t.Kind == framework.TraceLock {
			return
		}
		end, name := time.Now(), t.Name
		if t.Kind == framework.TraceState {
			name = "state " + t.State.String() // a connection state change, logged beside a write's requests
		} else if t.Err != nil {
			name += " (" + t.Err.Error() + ")"
		}
		r.mu.Lock()
		r.ops = append(r.ops, tlOp{idx, name, end.Add(-t.Duration), end})
		r.mu.Unlock()
	})
	z, err := connectSticky(ctx, servers, tr)
	if err != nil {
		return nil, err
	}
	return tlSession{diagSession{zkrSession: z, pause: 0}, r, idx}, nil
}

type tlSession struct {
	diagSession
	r   *tlRec
	idx int
}

func (s tlSession) WriteLock(p string) (harness.Locker, error) {
	s.r.writer.Store(int64(s.idx))
	l, err := s.zkrSession.WriteLock(p)
	return tlWriter{l, s.r}, err
}

type tlWriter struct {
	harness.Locker
	r *tlRec
}

func (w tlWriter) Acquire(ctx context.Context) error {
	t0 := time.Now()
	err := w.Locker.Acquire(ctx)
	w.r.mu.Lock()
	w.r.writes = append(w.r.writes, [2]time.Time{t0, time.Now()})
	w.r.mu.Unlock()
	return err
}

// tlSteps are the points of a write's critical path, in ms after its acquire started.
type tlSteps struct {
	createList, firstWatch, readersListed, readersDeleted, acquired float64
	writerOps, readerLists, readerDeletes                           int
	relisted                                                        bool // the create+listing listed twice (its first listing lacked the node)
	// the reader whose delete ended last: from the writer's create+listing end to its listing's
	// start (the notification reaching its handler), its listing, from the listing's end to its
	// delete's start, and its delete
	pickup, listRT, handoff, deleteRT float64
}

// slowestReader fills the slowest reader's steps of s: each reader's first directory listing
// (getChildrenW) that starts in the write and its first delete after it.
func (r *tlRec) slowestReader(w [2]time.Time, writer int, s *tlSteps) {
	ms := func(t time.Time) float64 { return float64(t.Sub(w[0]).Microseconds()) / 1e3 }
	type reaction struct{ list, del *tlOp }
	by := map[int]*reaction{}
	for i := range r.ops {
		op := &r.ops[i]
		if op.idx == writer || op.start.Before(w[0]) || op.start.After(w[1]) {
			continue
		}
		x := by[op.idx]
		if x == nil {
			x = &reaction{}
			by[op.idx] = x
		}
		switch {
		case op.name == "getChildrenW" && (x.list == nil || op.start.Before(x.list.start)):
			x.list = op
		case op.name == "delete" && (x.del == nil || op.start.Before(x.del.start)):
			x.del = op
		}
	}
	var last *reaction
	for _, x := range by {
		if x.list != nil && x.del != nil && !x.del.start.Before(x.list.end) && (last == nil || x.del.end.After(last.del.end)) {
			last = x
		}
	}
	if last != nil {
		s.pickup, s.listRT = ms(last.list.start)-s.createList, ms(last.list.end)-ms(last.list.start)
		s.handoff, s.deleteRT = ms(last.del.start)-ms(last.list.end), ms(last.del.end)-ms(last.del.start)
	}
}

func (r *tlRec) steps(w [2]time.Time) (tlSteps, string) {
	ms := func(t time.Time) float64 { return float64(t.Sub(w[0]).Microseconds()) / 1e3 }
	s := tlSteps{acquired: ms(w[1])}
	var seq []string
	writer, lists := int(r.writer.Load()), 0
	for _, op := range r.ops {
		if op.start.Before(w[0]) || op.start.After(w[1]) {
			continue
		}
		switch {
		case op.idx == writer:
			s.writerOps++
			seq = append(seq, fmt.Sprintf("%s %.1f-%.1f", op.name, ms(op.start), ms(op.end)))
			if op.name == "getChildren" && s.createList == 0 {
				lists++
			}
			if strings.HasPrefix(op.name, "create") && s.createList == 0 {
				s.createList, s.relisted = ms(op.end), lists > 1
			} else if strings.HasSuffix(op.name, "W") && !strings.HasPrefix(op.name, "getChildren") && s.firstWatch == 0 {
				s.firstWatch = ms(op.end)
			}
		case strings.HasPrefix(op.name, "getChildren"):
			s.readerLists++
			s.readersListed = max(s.readersListed, ms(op.end))
		case strings.HasPrefix(op.name, "state "):
			seq = append(seq, fmt.Sprintf("session %d %s at %.1f", op.idx, op.name, ms(op.end)))
		case op.name == "delete":
			s.readerDeletes++
			s.readersDeleted = max(s.readersDeleted, ms(op.end))
		}
	}
	r.slowestReader(w, writer, &s)
	return s, strings.Join(seq, ", ")
}

func TestDiagS5Timeline(t *testing.T) {
	srv := diagServer(t)
	for i, pause := range []time.Duration{500 * time.Microsecond, 0, 500 * time.Microsecond, 0} {
		r := &tlRec{}
		connect := func(ctx context.Context, servers string) (harness.Session, error) {
			s, err := r.connect(ctx, servers)
			if ts, ok := s.(tlSession); ok {
				ts.pause = pause
				return ts, err
			}
			return s, err
		}
		sc := s5Scenario(fmt.Sprintf("/diag/s5tl-%d", i), 2*time.Second)
		res, err := harness.RunScenario(context.Background(), connect, srv.connect, sc)
		r.mu.Lock()
		var all []tlSteps
		for j, w := range r.writes {
			s, seq := r.steps(w)
			all = append(all, s)
			if j < 3 || s.relisted {
				t.Logf("pause %v, write %d: acquired %.1f ms; readers: %d lists (last ended %.1f), %d deletes (last ended %.1f); writer: %s",
					pause, j, s.acquired, s.readerLists, s.readersListed, s.readerDeletes, s.readersDeleted, seq)
			}
		}
		r.mu.Unlock()
		med := func(f func(tlSteps) float64) float64 {
			v := make([]float64, len(all))
			for k, s := range all {
				v[k] = f(s)
			}
			sort.Float64s(v)
			if len(v) == 0 {
				return 0
			}
			return v[len(v)/2]
		}
		relisted := 0
		for _, s := range all {
			if s.relisted {
				relisted++
			}
		}
		t.Logf("pause %v: %d of %d create+listings listed twice; medians: readers' reaction (writer's create+listing end to their last delete end) %.1f ms, writer's tail (last delete end to acquired) %.1f ms",
			pause, relisted, len(all), med(func(s tlSteps) float64 { return s.readersDeleted - s.createList }),
			med(func(s tlSteps) float64 { return s.acquired - s.readersDeleted }))
		t.Logf("pause %v: the slowest reader's reaction, medians: writer's create+listing end to its listing's start %.1f ms, its listing %.1f ms, listing end to delete start %.2f ms, its delete %.1f ms",
			pause, med(func(s tlSteps) float64 { return s.pickup }), med(func(s tlSteps) float64 { return s.listRT }),
			med(func(s tlSteps) float64 { return s.handoff }), med(func(s tlSteps) float64 { return s.deleteRT }))
		t.Logf("pause %v: %d writes (p50 %.2f ms, reads/s %.0f, err %v); medians, ms after the acquire began: writer's create+listing ended %.1f, its first watch ended %.1f, readers' last listing ended %.1f, last delete ended %.1f, acquired %.1f; writer requests %.1f",
			pause, len(all), res.P50Ms, res.CyclesPerSec, err, med(func(s tlSteps) float64 { return s.createList }),
			med(func(s tlSteps) float64 { return s.firstWatch }), med(func(s tlSteps) float64 { return s.readersListed }),
			med(func(s tlSteps) float64 { return s.readersDeleted }), med(func(s tlSteps) float64 { return s.acquired }),
			med(func(s tlSteps) float64 { return float64(s.writerOps) }))
	}
}
