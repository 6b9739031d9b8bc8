// Package recipes_test holds the integration tests of the recipes, run
// against real ZooKeeper servers started by zktest.
package recipes_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// shared is the one server most tests use; tests that need faults on the
// server itself start their own. Its container reaper is fast (200 ms) so
// container-reaping tests finish quickly.
var shared *zktest.Cluster

func TestMain(m *testing.M) {
	runPauseHolderIfChild()
	opts := []zktest.Option{zktest.WithContainerCheckInterval(200 * time.Millisecond)}
	if os.Getenv("ZKRECIPES_FORCESYNC") == "1" { // the bench driver's server (benchmarks: benchcount_test.go)
		opts = append(opts, zktest.WithForceSync(true))
	}
	os.Exit(zktest.Main(m, &shared, opts...))
}

// lockPath returns a path unique to this test run.
func lockPath(t testing.TB) string { return zktest.UniquePath(t, "/tests") }

// ctxFor returns a bounded context for one test step.
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// contend runs rounds of acquire, a pass through g (held for hold), and
// release, on a goroutine counted by wg. acquire returns the release.
func contend(t *testing.T, wg *sync.WaitGroup, rounds int, g *zktest.Gauge, hold time.Duration, acquire func() (func() error, error)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for r := 0; r < rounds; r++ {
			release, err := acquire()
			if err != nil {
				t.Errorf("acquire: %v", err)
				return
			}
			g.Enter()
			time.Sleep(hold) // the critical section's work (none when hold is 0)
			g.Leave()
			if err := release(); err != nil {
				t.Errorf("release: %v", err)
				return
			}
		}
	}()
}
