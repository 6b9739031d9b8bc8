package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// cleanupCase is an acquire that, cancelled while it waits, has a cleanup to do beyond its
// waiting node: a lock it already holds, or the semaphore's internal mutex. left says what the
// directories must hold once its background deletes have finished (only the other client's
// nodes).
type cleanupCase struct {
	name    string
	prepare func(t *testing.T, fo *framework.Framework, p string)
	acquire func(ctx context.Context, fa *framework.Framework, p string) error
	left    func(t *testing.T, fo *framework.Framework, p string) error
}

// holdB has fo hold the mutex p/b for the rest of the test.
func holdB(t *testing.T, fo *framework.Framework, p string) {
	l := mustAcquire(t, mustMutex(t, fo, p+"/b"), 10*time.Second)
	t.Cleanup(func() { l.Release(context.Background()) })
}

// onlyHolderOfB checks that p/a is empty and p/b holds only fo's node.
func onlyHolderOfB(t *testing.T, fo *framework.Framework, p string) error {
	if n := countNodes(t, fo, p+"/a", p+"/b"); n[0] != 0 || n[1] != 1 {
		return fmt.Errorf("nodes in a, b: %v, want [0 1]", n)
	}
	return nil
}

var cleanupCases = []cleanupCase{
	{"multilock", holdB, func(ctx context.Context, fa *framework.Framework, p string) error {
		m, err := recipes.NewMultiMutex(fa, p+"/a", p+"/b")
		if err != nil {
			return err
		}
		_, err = m.Acquire(ctx)
		return err
	}, onlyHolderOfB},
	{"txmultilock", holdB, func(ctx context.Context, fa *framework.Framework, p string) error {
		m, err := recipes.NewTxMultiMutex(fa, p+"/a", p+"/b")
		if err != nil {
			return err
		}
		_, err = m.Acquire(ctx)
		return err
	}, onlyHolderOfB},
	{"semaphore", func(t *testing.T, fo *framework.Framework, p string) {
		ls := mustLeases(t, mustSem(t, fo, p, 1), 1)
		t.Cleanup(func() { ls[0].Release(context.Background()) })
	}, func(ctx context.Context, fa *framework.Framework, p string) error {
		s, err := recipes.NewSemaphore(fa, p, 1)
		if err != nil {
			return err
		}
		_, err = s.Acquire(ctx, 1)
		return err
	}, func(t *testing.T, fo *framework.Framework, p string) error {
		if n := countNodes(t, fo, p+"/locks", p+"/leases"); n[0] != 0 || n[1] != 1 {
			return fmt.Errorf("nodes in locks, leases: %v, want [0 1]", n)
		}
		return nil
	}},
}

// cancelWhileWaiting starts tc's acquire on a client dialling through a proxy, waits until it
// waits, applies fault to the proxy, cancels, and checks that the acquire returns
// context.Canceled within bound. It returns the other client (fo), the acquirer's client (fa)
// and the lock path, for the caller's checks of the cleanup.
func cancelWhileWaiting(t *testing.T, tc cleanupCase, fault func(*zktest.Proxy), bound time.Duration) (fo, fa *framework.Framework, p string) {
	t.Helper()
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	p = lockPath(t)
	fo = zktest.Connect(t, zk)
	fa = zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	t.Cleanup(func() { proxy.Delay(0); proxy.Blackhole(false) }) // before fa's Close
	tc.prepare(t, fo, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tc.acquire(ctx, fa, p) }()
	zktest.Eventually(t, 10*time.Second, "the acquirer to wait", func() bool { return fa.Watches() > 0 })
	fault(proxy)
	cancel()
	start := time.Now()
	err := zktest.Receive(t, done, 15*time.Second, "a cancelled acquire to finish cleaning up after its ctx ended")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire: %v, want context.Canceled", err)
	}
	d := time.Since(start)
	if d > bound {
		t.Errorf("a cancelled acquire returned %v after its ctx ended, want within %v", d, bound)
	}
	t.Logf("returned %v after its ctx ended", d)
	return fo, fa, p
}

// awaitLeft waits (30 s at most) until tc's directories hold only the other client's nodes: the
// background deletes have finished.
func awaitLeft(t *testing.T, tc cleanupCase, fo *framework.Framework, p string) {
	t.Helper()
	var left error
	defer func() {
		if t.Failed() && left != nil {
			t.Logf("still left: %v", left)
		}
	}()
	zktest.Eventually(t, 30*time.Second, "the background deletes to finish", func() bool {
		left = tc.left(t, fo, p)
		return left == nil
	})
}

// A cleanup never blocks past the caller's ctx: a cancelled acquire that must roll back on a
// live but slow connection (1.5 s per round trip) returns at once, and its nodes are gone once
// the guaranteed deletes in the background have finished. On the code before this test, the
// rollback of a multi-lock (sequential and transactional) and the semaphore's internal mutex
// had a round trip's allowance (1 s) past ctx on a connected framework: each returned about 1 s
// after its ctx ended.
func TestCancelledAcquireCleanupReturnsUnderLatency(t *testing.T) {
	const delay = 750 * time.Millisecond // each way: 1.5 s per request
	for _, tc := range cleanupCases {
		t.Run(tc.name, func(t *testing.T) {
			// 400 ms: well below the old allowance (1 s).
			fo, fa, p := cancelWhileWaiting(t, tc, func(px *zktest.Proxy) { px.Delay(delay) }, 400*time.Millisecond)
			if !fa.State().IsConnected() {
				t.Fatalf("the slow connection was given up (%v): the test needs it live", fa.State())
			}
			awaitLeft(t, tc, fo, p)
		})
	}
}

// Issue 16.4: cleanups return when their ctx ends. A cancelled acquire that must roll back under
// a blackhole returns at once, its deletes left to the background: a multi-lock (sequential and
// transactional) that took its first lock, and a semaphore that holds its internal mutex. On the
// old code they released with context.WithoutCancel and returned only after the retry policy
// gave up (35 s).
func TestCancelledAcquireCleanupReturnsUnderBlackhole(t *testing.T) {
	for _, tc := range cleanupCases {
		t.Run(tc.name, func(t *testing.T) {
			var proxy *zktest.Proxy
			fo, fa, p := cancelWhileWaiting(t, tc, func(px *zktest.Proxy) { proxy = px; px.Blackhole(true) }, 2*time.Second)
			proxy.Blackhole(false)
			zktest.Eventually(t, 30*time.Second, "the acquirer to reconnect", func() bool { return fa.State().IsConnected() })
			awaitLeft(t, tc, fo, p)
		})
	}
}
