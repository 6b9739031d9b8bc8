// Package recipes_test holds the integration tests of the recipes, run
// against real ZooKeeper servers started by zktest.
package recipes_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// shared is the one server most tests use; tests that need faults on the
// server itself start their own.
var (
	sharedOnce sync.Once
	shared     *zktest.Cluster
	sharedErr  error
)

// containerCheck is short so container-reaping tests finish quickly.
const containerCheck = 200 * time.Millisecond

func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	if code == 0 {
		if err := waitGoroutines(before, 10*time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// waitGoroutines waits, bounded, until no more goroutines run than before.
func waitGoroutines(before int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return nil
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			return fmt.Errorf("goroutine leak: %d running, %d before\n%s", n, before, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// server returns the shared single server, started on first use.
func server(t testing.TB) *zktest.Cluster {
	t.Helper()
	sharedOnce.Do(func() {
		shared, sharedErr = zktest.Launch(zktest.WithContainerCheckInterval(containerCheck))
	})
	if sharedErr != nil {
		t.Fatalf("zktest: %v", sharedErr)
	}
	return shared
}

// connect returns a connected framework on servers, closed at cleanup.
func connect(t testing.TB, servers []string, opts ...framework.Option) *framework.Framework {
	t.Helper()
	opts = append([]framework.Option{framework.WithSessionTimeout(4 * time.Second)}, opts...)
	fw, err := framework.New(servers, opts...)
	if err != nil {
		t.Fatalf("framework.New: %v", err)
	}
	t.Cleanup(func() { fw.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		t.Fatalf("WaitConnected: %v", err)
	}
	return fw
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// lockPath returns a path unique to this test run.
func lockPath(t testing.TB) string {
	b := make([]byte, 4)
	rand.Read(b)
	name := unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "-")
	return "/tests/" + name + "-" + hex.EncodeToString(b)
}

// ctxFor returns a bounded context for one test step.
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// children lists path's children through fw, failing the test on error.
func children(t testing.TB, fw *framework.Framework, path string) []string {
	t.Helper()
	kids, _, err := fw.Children(ctxFor(t, 10*time.Second), path)
	if err != nil && err != framework.ErrNoNode {
		t.Fatalf("Children(%s): %v", path, err)
	}
	return kids
}

// eventually polls cond until it holds or the bound passes.
func eventually(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gauge counts holders inside a critical section and remembers the most seen
// at once: the mutual-exclusion check of the load tests.
type gauge struct{ cur, most atomic.Int32 }

// add moves the count by n (negative to leave) and returns the new count.
func (g *gauge) add(n int32) int32 {
	now := g.cur.Add(n)
	for old := g.most.Load(); now > old && !g.most.CompareAndSwap(old, now); old = g.most.Load() {
	}
	return now
}

func (g *gauge) enter() { g.add(1) }
func (g *gauge) leave() { g.add(-1) }

// load is the current count.
func (g *gauge) load() int32 { return g.cur.Load() }

// max is the most holders seen at once.
func (g *gauge) max() int32 { return g.most.Load() }

// contend runs rounds of acquire, a pass through g (held for hold), and
// release, on a goroutine counted by wg. acquire returns the release.
func contend(t *testing.T, wg *sync.WaitGroup, rounds int, g *gauge, hold time.Duration, acquire func() (func() error, error)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for r := 0; r < rounds; r++ {
			release, err := acquire()
			if err != nil {
				t.Errorf("acquire: %v", err)
				return
			}
			g.enter()
			time.Sleep(hold) // the critical section's work (none when hold is 0)
			g.leave()
			if err := release(); err != nil {
				t.Errorf("release: %v", err)
				return
			}
		}
	}()
}
