package zktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// ErrStart is returned when a server does not start or does not serve in time.
var ErrStart = errors.New("zktest: server did not start")

// Cluster is one ZooKeeper server or an ensemble, running on 127.0.0.1 in a
// temporary directory. Safe for concurrent use.
type Cluster struct {
	members   []*Member
	dir       string
	closeOnce sync.Once
	closeErr  error
}

// Start starts one ZooKeeper server for the test and waits until a client
// can open a session on it. tb.Cleanup stops the server. It fails the test
// (with the server log's tail) if the server cannot start, and with an
// install hint if ZooKeeper is missing.
func Start(tb testing.TB, opts ...Option) *Cluster {
	tb.Helper()
	return startForTest(tb, 1, opts)
}

// StartEnsemble starts an ensemble of n servers (3 is typical) for the test
// and waits until every member is leader or follower and serves a session.
// tb.Cleanup stops them all.
func StartEnsemble(tb testing.TB, n int, opts ...Option) *Cluster {
	tb.Helper()
	return startForTest(tb, n, opts)
}

// Launch starts one server for callers outside tests (demos, benchmarks).
// The caller must Close the cluster.
func Launch(opts ...Option) (*Cluster, error) {
	return LaunchEnsemble(1, opts...)
}

// LaunchEnsemble starts n servers for callers outside tests. The caller
// must Close the cluster.
func LaunchEnsemble(n int, opts ...Option) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: ensemble size %d", ErrStart, n)
	}
	inst, err := findInstallation()
	if err != nil {
		return nil, err
	}
	cfg := buildConfig(opts)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.startTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		c, err := newCluster(n, inst, &cfg)
		if err != nil {
			return nil, err
		}
		err = c.startAll(ctx)
		if err == nil {
			return c, nil
		}
		portTaken := c.portTaken()
		c.Close()
		// Ports are picked free but released before the JVM binds them, so
		// another process can take one in between: try again with new ones.
		if !portTaken || attempt == startAttempts || ctx.Err() != nil {
			return nil, err
		}
	}
}

// startAttempts bounds retries when a picked port was taken meanwhile.
const startAttempts = 3

// portTaken reports whether a member's log says a port was already in use.
func (c *Cluster) portTaken() bool {
	for _, m := range c.members {
		if b, err := os.ReadFile(m.logPath); err == nil && strings.Contains(string(b), "Address already in use") {
			return true
		}
	}
	return false
}

func startForTest(tb testing.TB, n int, opts []Option) *Cluster {
	tb.Helper()
	c, err := LaunchEnsemble(n, opts...)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			for _, m := range c.members {
				tb.Logf("zktest: server %d log tail:\n%s", m.id, logTail(m.logPath, 15))
			}
		}
		if err := c.Close(); err != nil {
			tb.Errorf("zktest: close: %v", err)
		}
	})
	return c
}

func newCluster(n int, inst installation, cfg *config) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "zktest-")
	if err != nil {
		return nil, fmt.Errorf("%w: temp dir: %w", ErrStart, err)
	}
	ports, err := freePorts(3 * n)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: free ports: %w", ErrStart, err)
	}
	if cfg.clientPort > 0 {
		for i := range n {
			if err := checkPortFree(cfg.clientPort + i); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("%w: client port: %w", ErrStart, err)
			}
			ports[3*i] = cfg.clientPort + i
		}
	}
	c := &Cluster{dir: dir}
	for i := range n {
		m := &Member{
			id: i + 1, clientPort: ports[3*i], peerPort: ports[3*i+1], electionPort: ports[3*i+2],
			dir: filepath.Join(dir, fmt.Sprintf("server%d", i+1)), inst: inst, cfg: cfg, ensemble: n > 1,
		}
		m.logPath = filepath.Join(dir, fmt.Sprintf("server%d.log", i+1))
		if cfg.logDir != "" {
			m.logPath = filepath.Join(cfg.logDir, fmt.Sprintf("zookeeper-%d-server%d.log", m.clientPort, m.id))
		}
		c.members = append(c.members, m)
	}
	for _, m := range c.members {
		if err := m.writeFiles(c.members); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return c, nil
}

// startAll launches every member, then waits until each serves.
func (c *Cluster) startAll(ctx context.Context) error {
	for _, m := range c.members {
		if err := m.start(); err != nil {
			return err
		}
	}
	for _, m := range c.members {
		if err := m.waitReady(ctx); err != nil {
			return err
		}
	}
	return nil
}

// freePorts reserves n distinct loopback ports by listening on :0 and
// releases them together, so none repeats.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// checkPortFree fails if port cannot be listened on at 127.0.0.1 now.
func checkPortFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}

// Servers returns every member's client address, "127.0.0.1:port".
func (c *Cluster) Servers() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.Addr()
	}
	return out
}

// ConnectString returns the client addresses joined by commas.
func (c *Cluster) ConnectString() string { return strings.Join(c.Servers(), ",") }

// Size returns the number of members.
func (c *Cluster) Size() int { return len(c.members) }

// Member returns member i (0-based). It panics if i is out of range, like
// a slice index.
func (c *Cluster) Member(i int) *Member { return c.members[i] }

// Dir returns the cluster's temporary directory (data dirs, configs and,
// unless WithLogDir was given, logs). Close removes it.
func (c *Cluster) Dir() string { return c.dir }

// Close stops every member (SIGTERM, then SIGKILL after the grace period)
// and removes the temporary directory. It is idempotent.
func (c *Cluster) Close() error {
	c.closeOnce.Do(func() {
		var wg sync.WaitGroup
		errs := make([]error, len(c.members))
		for i, m := range c.members {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = m.Stop()
			}()
		}
		wg.Wait()
		errs = append(errs, os.RemoveAll(c.dir))
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
