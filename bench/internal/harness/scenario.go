package harness

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Scenario kinds. Lock kinds are run by every lock peer; raw kinds only by the raw floor peer.
const (
	Uncontended = "uncontended" // a. one session loops acquire+release on one path
	Contended   = "contended"   // b. Sessions sessions loop on one path, empty critical section
	ManyLocks   = "many"        // c. Sessions sessions, each on its own path
	Herd        = "herd"        // d. Sessions waiters queued behind one holder, single releases
	Depth       = "depth"       // e. one holder and Waiters waiters over Sessions sessions on one path
	DepthLimit  = "depth-limit" // e. one acquirer behind Waiters nodes the driver created (sorting after it)
	RW          = "rw"          // f. read/write lock, ReadPercent readers
	Semaphore   = "semaphore"   // f. semaphore with Leases leases
	MultiLock   = "multilock"   // f. multi-lock over 3 paths

	MultiUncontended = "multi-uncontended" // m. one session loops a multi-lock over Paths paths
	MultiContended   = "multi-contended"   // m. Sessions sessions take random sets of SetMin..SetMax of Paths paths

	// Sticky leases (issue 28); s1 is Uncontended.
	Affinity         = "affinity"          // s2. Sessions sessions over Paths paths, OwnPercent on their own share
	Alternate        = "alternate"         // s3, s4. two sessions take turns on one path, Hold idle before each acquire
	ReadMostly       = "read-mostly"       // s5. Sessions readers, one more session writes every Interval
	UncontendedWrite = "uncontended-write" // s5's reference: Uncontended on the write side of a read/write lock

	RawPair        = "raw-pair"        // create(ES)+delete latency
	RawCGCD        = "raw-cgcd"        // create(ES)+getChildren+delete latency
	RawGetChildren = "raw-getchildren" // getChildren latency
	RawGetData     = "raw-getdata"     // getData latency
	RawThroughput  = "raw-throughput"  // create+delete pairs/s with Sessions goroutines on one session
	RawSessions    = "raw-sessions"    // create+delete pairs/s with Sessions goroutines, own sessions
	RawDelete      = "raw-delete"      // delete latency (the create before it is not timed)
	RawHandoff     = "raw-handoff"     // idle handoff: delete -> watch fires -> getChildren, 20 ms apart
)

// ErrUnsupported marks a scenario a peer has no recipe for; its Result has Unsupported set.
var ErrUnsupported = errors.New("harness: scenario not supported by this peer")

// ErrBadScenario reports an invalid Scenario.
var ErrBadScenario = errors.New("harness: bad scenario")

// Scenario is one benchmark workload. The zero value of a field means the default noted.
type Scenario struct {
	Kind        string        // one of the kinds above
	Root        string        // a unique znode under which the scenario works
	Sessions    int           // sessions (b, c, d, e, f) or goroutines (raw-throughput); default 1
	Waiters     int           // depth: total acquirers queued on the path
	Warmup      time.Duration // before every timed window
	Duration    time.Duration // the timed window
	WarmCycles  int           // uncontended: cycles run before the window (peer-bench: 1000)
	Releases    int           // herd: measured single releases (peer-bench: 15)
	Leases      int           // semaphore: max leases (default 4)
	ReadPercent int           // rw: percent of acquisitions that are reads (default 90)
	Budget      time.Duration // depth: bound on filling the queue; depth-limit: on the acquire
	DrainBudget time.Duration // depth: bound on the timed releases and on draining (default Budget)

	// Multi-lock scenarios (m).
	Paths    int           // paths of the set (multi-uncontended) or of the pool (multi-contended)
	SetMin   int           // multi-contended: smallest set taken (default 2)
	SetMax   int           // multi-contended: largest set taken (default 4)
	Hold     time.Duration // multi-contended: the critical section
	Deadline time.Duration // multi-contended: each acquire's deadline (default 5 s)
	Mode     string        // multi kinds: MultiTx, MultiSeq or MultiNaive

	// Sticky scenarios (s). Hold is also alternate's idle time before each acquire.
	OwnPercent int           // affinity: percent of acquisitions on the session's own paths (default 90)
	Interval   time.Duration // read-mostly: the writer's pause between its acquisitions (default 100 ms)
	Burst      int           // alternate: acquisitions per turn, the first timed (default 1)

	// Mark, if set, is called at a scenario's phase marks and returns once the driver has
	// measured the server there (depth: "filled", "start", "end"). Process peers print the mark
	// and wait for the driver's go-ahead on stdin.
	Mark func(ctx context.Context, mark string) `json:"-"`
}

// mark calls s.Mark if set.
func (s Scenario) mark(ctx context.Context, m string) {
	if s.Mark != nil {
		s.Mark(ctx, m)
	}
}

// Validate checks the fields the kind needs.
func (s Scenario) Validate() error {
	switch {
	case s.Kind == "":
		return fmt.Errorf("%w: no kind", ErrBadScenario)
	case len(s.Root) < 2 || s.Root[0] != '/' || s.Root[len(s.Root)-1] == '/':
		return fmt.Errorf("%w: root %q", ErrBadScenario, s.Root)
	case s.Duration <= 0 && s.Kind != Herd && s.Kind != Depth && s.Kind != DepthLimit:
		return fmt.Errorf("%w: duration %v", ErrBadScenario, s.Duration)
	case s.Sessions < 0 || s.Waiters < 0 || s.WarmCycles < 0 || s.Releases < 0 || s.Leases < 0 || s.Budget < 0 || s.DrainBudget < 0:
		return fmt.Errorf("%w: negative count", ErrBadScenario)
	case s.ReadPercent < 0 || s.ReadPercent > 100:
		return fmt.Errorf("%w: read percent %d", ErrBadScenario, s.ReadPercent)
	case (s.Kind == MultiUncontended || s.Kind == MultiContended) && (s.Paths < 1 || s.Mode == ""):
		return fmt.Errorf("%w: multi-lock of %d paths, mode %q", ErrBadScenario, s.Paths, s.Mode)
	case s.Kind == Affinity && (s.Paths < s.Sessions || s.Sessions < 2 || s.OwnPercent < 0 || s.OwnPercent > 100):
		return fmt.Errorf("%w: affinity of %d sessions over %d paths, %d%% own", ErrBadScenario, s.Sessions, s.Paths, s.OwnPercent)
	case s.Hold < 0 || s.Interval < 0 || s.Burst < 0:
		return fmt.Errorf("%w: negative hold or interval", ErrBadScenario)
	case s.Kind == MultiContended && (s.SetMin < 0 || s.SetMax < s.SetMin || s.SetMax > s.Paths || s.Hold < 0 || s.Deadline < 0):
		return fmt.Errorf("%w: sets of %d..%d of %d paths", ErrBadScenario, s.SetMin, s.SetMax, s.Paths)
	}
	return nil
}

// withDefaults fills the zero fields.
func (s Scenario) withDefaults() Scenario {
	if s.Sessions == 0 {
		s.Sessions = 1
	}
	if s.Leases == 0 {
		s.Leases = 4
	}
	if s.ReadPercent == 0 {
		s.ReadPercent = 90
	}
	if s.Releases == 0 {
		s.Releases = 15
	}
	if s.Waiters == 0 {
		s.Waiters = s.Sessions
	}
	if s.Budget == 0 {
		s.Budget = time.Minute
	}
	if s.DrainBudget == 0 {
		s.DrainBudget = s.Budget
	}
	if s.Kind == MultiContended {
		if s.SetMin == 0 {
			s.SetMin = min(2, s.Paths)
		}
		if s.SetMax == 0 {
			s.SetMax = max(s.SetMin, min(4, s.Paths))
		}
	}
	if s.Deadline == 0 {
		s.Deadline = 5 * time.Second
	}
	if s.OwnPercent == 0 {
		s.OwnPercent = 90
	}
	if s.Interval == 0 {
		s.Interval = 100 * time.Millisecond
	}
	if s.Burst == 0 {
		s.Burst = 1
	}
	return s
}

// Args renders the scenario as the flags the Java and Python peers read, one scenario per line.
func (s Scenario) Args() []string {
	s = s.withDefaults()
	return []string{
		"--kind=" + s.Kind, "--root=" + s.Root,
		fmt.Sprintf("--sessions=%d", s.Sessions), fmt.Sprintf("--waiters=%d", s.Waiters),
		fmt.Sprintf("--warmup-ms=%d", s.Warmup.Milliseconds()),
		fmt.Sprintf("--duration-ms=%d", s.Duration.Milliseconds()),
		fmt.Sprintf("--warm-cycles=%d", s.WarmCycles), fmt.Sprintf("--releases=%d", s.Releases),
		fmt.Sprintf("--leases=%d", s.Leases), fmt.Sprintf("--read-pct=%d", s.ReadPercent),
		fmt.Sprintf("--budget-ms=%d", s.Budget.Milliseconds()),
		fmt.Sprintf("--drain-budget-ms=%d", s.DrainBudget.Milliseconds()),
		fmt.Sprintf("--paths=%d", s.Paths), fmt.Sprintf("--set-min=%d", s.SetMin), fmt.Sprintf("--set-max=%d", s.SetMax),
		fmt.Sprintf("--hold-us=%d", s.Hold.Microseconds()), fmt.Sprintf("--deadline-ms=%d", s.Deadline.Milliseconds()),
		"--mode=" + s.Mode, fmt.Sprintf("--own-pct=%d", s.OwnPercent),
		fmt.Sprintf("--interval-ms=%d", s.Interval.Milliseconds()), fmt.Sprintf("--burst=%d", s.Burst),
	}
}

// Result is what every peer reports for one scenario, in every language (JSON field names are
// the contract with the Java and Python programs).
type Result struct {
	Peer                string             `json:"peer"`
	Kind                string             `json:"kind"`
	Sessions            int                `json:"sessions"`
	Waiters             int                `json:"waiters,omitempty"`
	Cycles              int64              `json:"cycles"`         // acquisitions (or raw ops) in the window
	TotalCycles         int64              `json:"total_cycles"`   // every acquisition, warm-up and drain included
	Seconds             float64            `json:"seconds"`        // window length
	CyclesPerSec        float64            `json:"cycles_per_sec"` // Cycles / Seconds
	P50Ms               float64            `json:"p50_ms,omitempty"`
	P99Ms               float64            `json:"p99_ms,omitempty"`
	MinPerClient        int64              `json:"min_per_client,omitempty"`
	MaxPerClient        int64              `json:"max_per_client,omitempty"`
	Violations          int64              `json:"violations"` // holder counter over the permitted count
	HandoffP50Ms        float64            `json:"handoff_p50_ms,omitempty"`
	CPUUsPerOp          float64            `json:"client_cpu_us_per_cycle,omitempty"`
	MemPerWaiter        float64            `json:"mem_bytes_per_waiter,omitempty"`
	GoroutinesPerWaiter float64            `json:"goroutines_per_waiter,omitempty"` // depth, Go peers: library goroutines per waiter
	DrainSeconds        float64            `json:"drain_s,omitempty"`               // depth: first release to the last waiter's acquisition
	Unsupported         bool               `json:"unsupported,omitempty"`
	Error               string             `json:"error,omitempty"`
	Extra               map[string]float64 `json:"extra,omitempty"`
}

// Peer is one implementation under comparison. Run executes scenarios in order (in one process
// for process peers, so JIT warm-up carries over as in peer-bench.md) and returns one Result per
// scenario; a scenario the peer lacks yields Unsupported, a failed one has Error set. The error
// return is for failures of the peer as a whole (cannot start, ctx ended). Cancelling ctx stops
// the run; sessions are closed.
type Peer interface {
	Name() string
	Run(ctx context.Context, servers string, scenarios ...Scenario) ([]Result, error)
}
