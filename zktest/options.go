package zktest

import "time"

// Defaults, each chosen for fast, reliable tests on a small shared machine.
const (
	// DefaultTickTime is short so that 200 ms..2 s session timeouts are allowed
	// (ZooKeeper negotiates sessions to at least 2 ticks).
	DefaultTickTime = 100 * time.Millisecond
	// DefaultMaxSessionTimeout caps negotiated sessions; long enough for any test.
	DefaultMaxSessionTimeout = 30 * time.Second
	// DefaultContainerCheckInterval makes empty container nodes vanish within a
	// second, instead of ZooKeeper's default of one minute.
	DefaultContainerCheckInterval = 500 * time.Millisecond
	// DefaultStartTimeout bounds how long Start waits for a server to serve.
	DefaultStartTimeout = 30 * time.Second
	// DefaultStopGrace is how long Stop waits after SIGTERM before SIGKILL.
	DefaultStopGrace = 2 * time.Second
	// DefaultMaxHeap keeps each JVM small; tests hold little data.
	DefaultMaxHeap = "256m"
)

// Option configures the servers started by Start, StartEnsemble and Launch.
type Option func(*config)

type config struct {
	tickTime          time.Duration
	minSessionTimeout time.Duration
	maxSessionTimeout time.Duration
	containerCheck    time.Duration
	forceSync         bool
	extendedTypes     bool
	logDir            string
	startTimeout      time.Duration
	stopGrace         time.Duration
	maxHeap           string
	extraJVMFlags     []string
	clientPort        int // member i listens on clientPort+i; 0: free ports
}

func defaultConfig() config {
	return config{
		tickTime:          DefaultTickTime,
		maxSessionTimeout: DefaultMaxSessionTimeout,
		containerCheck:    DefaultContainerCheckInterval,
		startTimeout:      DefaultStartTimeout,
		stopGrace:         DefaultStopGrace,
		maxHeap:           DefaultMaxHeap,
	}
}

func buildConfig(opts []Option) config {
	c := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.tickTime < time.Millisecond {
		c.tickTime = DefaultTickTime
	}
	if c.minSessionTimeout < 2*c.tickTime {
		c.minSessionTimeout = 2 * c.tickTime
	}
	if c.maxSessionTimeout < c.minSessionTimeout {
		c.maxSessionTimeout = c.minSessionTimeout
	}
	if c.containerCheck < time.Millisecond {
		c.containerCheck = DefaultContainerCheckInterval
	}
	if c.startTimeout <= 0 {
		c.startTimeout = DefaultStartTimeout
	}
	if c.stopGrace < 0 {
		c.stopGrace = 0
	}
	return c
}

// WithTickTime sets ZooKeeper's tickTime (default 100 ms). The minimum
// session timeout is two ticks unless WithSessionTimeouts says otherwise.
func WithTickTime(d time.Duration) Option { return func(c *config) { c.tickTime = d } }

// WithSessionTimeouts sets the server's minSessionTimeout and maxSessionTimeout
// (defaults: two ticks and 30 s). Clients asking outside the range are clamped.
func WithSessionTimeouts(min, max time.Duration) Option {
	return func(c *config) { c.minSessionTimeout, c.maxSessionTimeout = min, max }
}

// WithContainerCheckInterval sets how often the server reaps empty container
// nodes (and expired TTL nodes); default 500 ms.
func WithContainerCheckInterval(d time.Duration) Option {
	return func(c *config) { c.containerCheck = d }
}

// WithForceSync makes the server fsync its transaction log on every write.
// Off by default (fast tests); benchmarks want it on.
func WithForceSync(on bool) Option { return func(c *config) { c.forceSync = on } }

// WithExtendedTypes enables ZooKeeper's extended types (TTL nodes).
func WithExtendedTypes(on bool) Option { return func(c *config) { c.extendedTypes = on } }

// WithLogDir writes the server logs (one file per member) into dir, which
// outlives the cluster. By default logs go to the cluster's temporary
// directory and are removed with it.
func WithLogDir(dir string) Option { return func(c *config) { c.logDir = dir } }

// WithStartTimeout bounds how long a start waits for the servers to serve
// (default 30 s).
func WithStartTimeout(d time.Duration) Option { return func(c *config) { c.startTimeout = d } }

// WithStopGrace sets how long Stop and Close wait after SIGTERM before they
// send SIGKILL (default 2 s; 0 kills at once).
func WithStopGrace(d time.Duration) Option { return func(c *config) { c.stopGrace = d } }

// WithJVMFlags appends raw flags to the JVM command line, for example
// "-Dzookeeper.snapCount=1000" or "-Xmx1g" (the last -Xmx wins).
func WithJVMFlags(flags ...string) Option {
	return func(c *config) { c.extraJVMFlags = append(c.extraJVMFlags, flags...) }
}

// WithClientPort makes member i (0-based) serve clients on port+i, 127.0.0.1 only, instead of
// a free port (the peer and election ports stay free ones). A start fails at once if one of
// those ports is in use.
func WithClientPort(port int) Option { return func(c *config) { c.clientPort = port } }
