package recipes_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// directAndProxied connects two clients to the shared server: fa directly, fb (with opts)
// through the returned proxy, whose faults then touch fb's connection and session only.
func directAndProxied(t *testing.T, opts ...framework.Option) (proxy *zktest.Proxy, fa, fb *framework.Framework) {
	t.Helper()
	proxy = zktest.NewProxy(t, shared.Servers()[0])
	fa = zktest.Connect(t, shared)
	fb = zktest.Connect(t, shared, append([]framework.Option{framework.WithDialer(proxy.Dialer())}, opts...)...)
	return proxy, fa, fb
}

// sharedCountNode creates the count node p+"-count" holding n, deleted at cleanup, and
// returns its path: the shared maximum of a semaphore on p.
func sharedCountNode(t testing.TB, fw *framework.Framework, p string, n int32) string {
	t.Helper()
	count := p + "-count"
	if _, err := fw.Create(ctxFor(t, 5*time.Second), count, driver.EncodeCount(n), framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(context.Background(), count) })
	return count
}

// mustSharedSemaphore builds a semaphore on p whose maximum is read from count, or fails the
// test.
func mustSharedSemaphore(t testing.TB, fw *framework.Framework, p, count string) *recipes.InterProcessSemaphoreV2 {
	t.Helper()
	s, err := recipes.NewSharedSemaphore(fw, p, count)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// expireSession expires session id (password pw) for real on zk's first server, or fails the
// test.
func expireSession(t testing.TB, zk *zktest.Cluster, id int64, pw []byte) {
	t.Helper()
	if err := zktest.ExpireSession(ctxFor(t, 10*time.Second), zk.Servers()[0], id, pw); err != nil {
		t.Fatal(err)
	}
}

// raisingTheCountWakesAWaiter checks Curator's testThreadedLeaseIncrease on count, a shared
// maximum of 1 for semaphores on p: holder takes the one lease, a waiter on waiter must wait,
// and raising the count to 2 grants it. Both leases are then returned and nothing is left.
func raisingTheCountWakesAWaiter(t *testing.T, fw *framework.Framework, p, count string, holder, waiter *recipes.InterProcessSemaphoreV2) {
	t.Helper()
	held := mustLeases(t, holder, 1)
	got := acquireAsync(t, waiter, ctxFor(t, 30*time.Second), 1)
	stillWaiting(t, got, "a second lease at maximum 1")
	if _, err := fw.Set(ctxFor(t, 5*time.Second), count, driver.EncodeCount(2), -1); err != nil {
		t.Fatal(err)
	}
	second := receive(t, got, "the waiter after the maximum was raised")
	mustRelease(t, held[0])
	mustRelease(t, second[0])
	assertEmpty(t, fw, p)
}
