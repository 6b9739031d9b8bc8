package zktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Helpers for the tests of code built on framework: one server shared by a package's tests,
// connected clients that close themselves, bounded polls and leak checks.

// Main is a whole TestMain for a package whose tests share one server: it launches the server
// with opts, sets *srv to it, runs the tests under VerifyNoLeaks (the server starts before the
// leak check looks, so its own goroutines do not count), closes the server and returns the exit
// code. A server that does not start ends the run with code 1.
//
//	var srv *zktest.Cluster
//	func TestMain(m *testing.M) { os.Exit(zktest.Main(m, &srv)) }
func Main(m *testing.M, srv **Cluster, opts ...Option) int {
	c, err := Launch(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*srv = c
	defer c.Close()
	return VerifyNoLeaks(m)
}

// ConnectTimeout bounds how long Connect waits for a session.
const ConnectTimeout = 20 * time.Second

// Connect returns a framework.Framework on c's servers with a session established, closed at
// the test's cleanup. The session timeout is 4 s (short, so that expiry tests are quick) unless
// opts set another; on a WithTLS cluster it connects over TLS with c.TLS().ClientConfig(). It fails the test if no session is established within ConnectTimeout.
func Connect(tb testing.TB, c *Cluster, opts ...framework.Option) *framework.Framework {
	tb.Helper()
	base := []framework.Option{framework.WithSessionTimeout(4 * time.Second)}
	if c.tls != nil {
		base = append(base, framework.WithTLS(c.tls.ClientConfig()))
	}
	opts = append(base, opts...)
	fw, err := framework.New(c.Servers(), opts...)
	if err != nil {
		tb.Fatalf("zktest: framework.New: %v", err)
	}
	tb.Cleanup(func() { fw.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), ConnectTimeout)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		tb.Fatalf("zktest: WaitConnected: %v", err)
	}
	return fw
}

// Eventually polls cond every 20 ms until it holds, and fails the test, naming what it waited
// for, if limit passes first: the bounded wait for a state reached asynchronously (a node
// deleted, a watch removed) where no event can be awaited.
func Eventually(tb testing.TB, limit time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("zktest: timed out after %v waiting for %s", limit, what)
			return // for a tb whose Fatalf returns
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Receive returns the next value on ch, or fails the test after limit, naming what it waited
// for: the bounded wait for an event (a grant, a notification) that tests share.
func Receive[T any](tb testing.TB, ch <-chan T, limit time.Duration, what string) T {
	tb.Helper()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		tb.Fatalf("timed out after %v waiting for %s", limit, what)
	}
	var zero T
	return zero // for a tb whose Fatalf returns
}

// AwaitGone waits until path does not exist, on data watches (no polling), and returns ctx's
// error, naming path, if ctx ends first: the bounded wait for a node that the server (a
// container check, a session expiry) or another client deletes. A change that is not the delete
// sets the next watch; a missing node sets none. A watch left on a node that outlives ctx stays
// on the server until the node changes (go-zookeeper cannot remove one). It fails no test
// itself, so hooks running on other goroutines can call it.
func AwaitGone(ctx context.Context, fw *framework.Framework, path string) error {
	for {
		_, _, w, err := fw.GetW(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("zktest: await %s gone: %w", path, err)
		}
		if _, err := w.Wait(ctx); err != nil {
			return fmt.Errorf("zktest: await %s gone: %w", path, err)
		}
	}
}

var unsafePathChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// UniquePath returns a znode path under parent (e.g. "/tests") named after the test plus a
// random suffix, so that tests sharing one server, and reruns with -count, never meet.
func UniquePath(tb testing.TB, parent string) string {
	b := make([]byte, 4)
	rand.Read(b)
	name := unsafePathChars.ReplaceAllString(strings.ToLower(tb.Name()), "-")
	return strings.TrimSuffix(parent, "/") + "/" + name + "-" + hex.EncodeToString(b)
}

// Children lists path's children through fw (none when path does not exist), failing the test
// on any other error or after 10 s: the "no node is left behind" check.
func Children(tb testing.TB, fw *framework.Framework, path string) []string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kids, _, err := fw.Children(ctx, path)
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		tb.Fatalf("zktest: Children(%s): %v", path, err)
	}
	return kids
}

// NoWatchesWait bounds how long CheckNoWatches waits for watches to go.
const NoWatchesWait = 10 * time.Second

// CheckNoWatches waits, at most NoWatchesWait, until none of fws holds a watch and no running
// member of c reports one ("wchs"), and fails the test otherwise: the watch-leak check, on the
// client and on the server. Other clients of c must hold no watches either.
func CheckNoWatches(tb testing.TB, c *Cluster, fws ...*framework.Framework) {
	tb.Helper()
	Eventually(tb, NoWatchesWait, "no client watches", func() bool {
		for _, fw := range fws {
			if fw.Watches() != 0 {
				return false
			}
		}
		return true
	})
	Eventually(tb, NoWatchesWait, "no server watches", func() bool {
		for i := range c.Size() {
			m := c.Member(i)
			if !m.Running() {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			n, err := m.WatchCount(ctx)
			cancel()
			if err != nil || n != 0 {
				return false
			}
		}
		return true
	})
}

// Gauge counts the holders inside a critical section and remembers the most seen at once: the
// check that a lock or a leader election never admits more holders than it should. The zero
// value is ready; safe for concurrent use.
type Gauge struct{ cur, most atomic.Int32 }

// Add moves the count by n (negative to leave) and returns the new count.
func (g *Gauge) Add(n int32) int32 {
	now := g.cur.Add(n)
	for old := g.most.Load(); now > old && !g.most.CompareAndSwap(old, now); old = g.most.Load() {
	}
	return now
}

// Enter counts one more holder.
func (g *Gauge) Enter() { g.Add(1) }

// Leave counts one holder less.
func (g *Gauge) Leave() { g.Add(-1) }

// Load is the current count.
func (g *Gauge) Load() int32 { return g.cur.Load() }

// Max is the most holders seen at once.
func (g *Gauge) Max() int32 { return g.most.Load() }
