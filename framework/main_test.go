package framework_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// shared is one ZooKeeper server for the tests that do not stop it.
var shared *zktest.Cluster

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	c, err := zktest.Launch(zktest.WithExtendedTypes(true), zktest.WithContainerCheckInterval(100*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, "framework tests:", err)
		return 1
	}
	shared = c
	defer c.Close()
	return zktest.VerifyNoLeaks(m)
}

// bound is the longest any awaited event may take.
const bound = 20 * time.Second

var pathSeq atomic.Int64

// uniquePath returns a fresh path for one test.
func uniquePath(t *testing.T) string {
	return fmt.Sprintf("/t%d-%d", time.Now().UnixNano()%1e9, pathSeq.Add(1))
}

// newFW connects a Framework to servers (default: the shared server) and closes it at cleanup.
func newFW(t *testing.T, servers []string, opts ...framework.Option) *framework.Framework {
	t.Helper()
	f, _ := newFWListening(t, servers, opts...)
	return f
}

// newFWListening is newFW with a listener registered before connecting (Connected consumed).
func newFWListening(t *testing.T, servers []string, opts ...framework.Option) (*framework.Framework, *states) {
	t.Helper()
	if servers == nil {
		servers = shared.Servers()
	}
	base := []framework.Option{
		framework.WithSessionTimeout(4 * time.Second),
		framework.WithConnectionTimeout(2 * time.Second),
		framework.WithRetryPolicy(retry.NTimes(20, 100*time.Millisecond)),
	}
	s, withS := listening()
	f, err := framework.New(servers, append(append(base, withS), opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := f.WaitConnected(ctx); err != nil {
		t.Fatalf("WaitConnected: %v", err)
	}
	s.expect(t, framework.Connected)
	return f, s
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

// states collects connection states from a listener.
type states struct {
	ch chan framework.ConnectionState
}

// listening returns states and the option that feeds them from before the connection starts
// (a listener added after New may miss the first Connected: TestWithListenerSeesFirstConnected).
func listening() (*states, framework.Option) {
	s := &states{ch: make(chan framework.ConnectionState, 100)}
	return s, framework.WithListener(func(cs framework.ConnectionState) { s.ch <- cs })
}

// expect waits for the next states, in order.
func (s *states) expect(t *testing.T, want ...framework.ConnectionState) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-s.ch:
			if got != w {
				t.Fatalf("state %v, want %v", got, w)
			}
		case <-time.After(bound):
			t.Fatalf("no state %v within %v", w, bound)
		}
	}
}
