package framework

import "time"

// TraceKind says what a Trace reports.
type TraceKind int

// Trace kinds.
const (
	TraceOperation TraceKind = iota // one framework operation (with its retries): Name is the request
	TraceLock                       // a lock event reported by a recipe: queued, acquired, released, lost
	TraceState                      // a connection state change: State
)

// String names the kind.
func (k TraceKind) String() string {
	switch k {
	case TraceOperation:
		return "operation"
	case TraceLock:
		return "lock"
	case TraceState:
		return "state"
	}
	return "TraceKind(?)"
}

// Trace is one thing the framework or a recipe did, for metrics and traces: the part Curator's
// TracerDriver plays. Duration is the operation's latency (retries included), a lock's wait
// (acquired) or hold time (released, lost); Err is the operation's error or a loss's reason.
type Trace struct {
	Kind     TraceKind
	Name     string // "getData", "create", …; "queued", "acquired", "released", "lost"
	Path     string // namespace-relative
	Duration time.Duration
	Err      error
	State    ConnectionState // TraceState only
}

// WithTracer makes the framework call fn for every operation, every connection state and every
// lock event of the recipes built on it. fn runs on the goroutine that did the work (states: on
// the listener goroutine), so it must be fast, must not block and must be safe for concurrent
// use; feed a metrics library or a tracer from it (see the example in trace_example_test.go).
// Without it, tracing costs one nil check per operation.
func WithTracer(fn func(Trace)) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("nil tracer")
			return
		}
		c.tracer = fn
	}
}

// Tracing reports whether a tracer is set, so that callers can skip building a Trace.
func (f *Framework) Tracing() bool { return f.cfg.tracer != nil }

// Trace hands t to the tracer, if any: recipes (yours too) report their events through it.
func (f *Framework) Trace(t Trace) {
	if f.cfg.tracer != nil {
		f.cfg.tracer(t)
	}
}

// traceStart is the start time of a traced operation, or the zero time when nothing traces.
func (f *Framework) traceStart() time.Time {
	if f.cfg.tracer == nil {
		return time.Time{}
	}
	return time.Now()
}

// traceOp reports an operation that began at start (from traceStart) and ended with *err.
func (f *Framework) traceOp(name, path string, start time.Time, err *error) {
	if f.cfg.tracer == nil {
		return
	}
	f.cfg.tracer(Trace{Kind: TraceOperation, Name: name, Path: path, Duration: time.Since(start), Err: *err})
}
