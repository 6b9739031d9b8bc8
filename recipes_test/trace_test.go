package recipes_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// traceLog collects traces; safe for concurrent use.
type traceLog struct {
	mu     sync.Mutex
	traces []framework.Trace
}

func (l *traceLog) add(t framework.Trace) {
	l.mu.Lock()
	l.traces = append(l.traces, t)
	l.mu.Unlock()
}

// opsFrom returns the operations traced from index i of the log on, and the log's length.
func (l *traceLog) opsFrom(i int) ([]framework.Trace, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ops []framework.Trace
	for _, t := range l.traces[i:] {
		if t.Kind == framework.TraceOperation {
			ops = append(ops, t)
		}
	}
	return ops, len(l.traces)
}

// saw reports whether an operation name on p has succeeded.
func (l *traceLog) saw(name, p string) bool {
	ops, _ := l.opsFrom(0)
	for _, op := range ops {
		if op.Name == name && op.Path == p && op.Err == nil {
			return true
		}
	}
	return false
}

// names returns "kind/name" of every trace of kind k, in order.
func (l *traceLog) names(k framework.TraceKind) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, t := range l.traces {
		if t.Kind == k {
			out = append(out, t.Name)
		}
	}
	return out
}

// The tracer hears operations, connection states and lock events: a contended acquire is
// queued then acquired (with its wait), a release reports the hold time, a loss its reason.
func TestTracerSeesLockEvents(t *testing.T) {
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	p := lockPath(t)
	var log traceLog
	fa := zktest.Connect(t, zk)
	fb := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithTracer(log.add))
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
	mb := mustMutex(t, fb, p)
	got := make(chan struct{})
	go func() {
		defer close(got)
		l, err := mb.Acquire(ctxFor(t, 30*time.Second))
		if err != nil {
			t.Errorf("waiter: %v", err)
			return
		}
		if err := l.Release(ctxFor(t, 10*time.Second)); err != nil {
			t.Errorf("release: %v", err)
		}
	}()
	zktest.Eventually(t, 10*time.Second, "queued", func() bool { return slices.Contains(log.names(framework.TraceLock), "queued") })
	mustRelease(t, la)
	receive(t, got, "the waiter's acquire and release")
	l2 := mustAcquire(t, mb, 10*time.Second)
	proxy.DropConnections() // Suspended: the lease is lost
	receive(t, l2.Done(), "the loss")
	zktest.Eventually(t, 10*time.Second, "the lost event", func() bool {
		return slices.Equal(log.names(framework.TraceLock), []string{"queued", "acquired", "released", "acquired", "lost"})
	})
	ops := log.names(framework.TraceOperation)
	for _, want := range []string{"createAndList", "getDataW", "delete"} {
		if !slices.Contains(ops, want) {
			t.Errorf("operations %v lack %q", ops, want)
		}
	}
	zktest.Eventually(t, 10*time.Second, "the states", func() bool {
		st := log.names(framework.TraceState)
		return slices.Contains(st, "SUSPENDED") && slices.Contains(st, "RECONNECTED")
	})
}

// Feeding a metrics library from the tracer, without the library importing one: the tracer
// turns each Trace into an observation. With Prometheus the two maps below would be a
// HistogramVec (prometheus.NewHistogramVec(..., []string{"kind", "name"})) and the Observe
// call hist.WithLabelValues(kind, name).Observe(t.Duration.Seconds()); with OpenTelemetry a
// metric.Float64Histogram and hist.Record(ctx, secs, metric.WithAttributes(...)). A span per
// lock hold is the same idea: start it at "acquired", end it at "released" or "lost".
func ExampleTrace_metrics() {
	zk, err := zktest.Launch()
	if err != nil {
		panic(err)
	}
	defer zk.Close()

	var mu sync.Mutex
	count := map[string]int{}             // a CounterVec
	seconds := map[string]time.Duration{} // a HistogramVec's sum
	observe := func(t framework.Trace) {  // must be fast and never block
		key := t.Kind.String() + "/" + t.Name
		mu.Lock()
		count[key]++
		seconds[key] += t.Duration
		mu.Unlock()
	}
	fw, err := framework.New(zk.Servers(), framework.WithTracer(observe))
	if err != nil {
		panic(err)
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		panic(err)
	}
	m := mustMutexNoFatal(fw, "/locks/metrics")
	for range 3 {
		l, err := m.Acquire(ctx)
		if err != nil {
			panic(err)
		}
		if err := l.Release(ctx); err != nil {
			panic(err)
		}
	}
	mu.Lock()
	var keys []string
	for k := range count {
		if k == "lock/acquired" || k == "lock/released" {
			keys = append(keys, fmt.Sprintf("%s %d", k, count[k]))
		}
	}
	mu.Unlock()
	sort.Strings(keys)
	fmt.Println(keys)
	// Output: [lock/acquired 3 lock/released 3]
}
