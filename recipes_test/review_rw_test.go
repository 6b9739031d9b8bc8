package recipes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Review defect 1: a downgrade whose write lease ends while the read node is
// being created must never be granted beside another process's writer. The
// write lease's session is expired on the server while the read's create is
// held in a blackholed proxy; a queued writer of another process then takes
// the write lock, and the read node is created in the new session with the
// old writer's sequence, which sorts ahead of that writer.
func TestRWDowngradeAfterWriteLeaseExpired(t *testing.T) {
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	p := lockPath(t)
	fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()))
	fb := zktest.Connect(t, zk)
	rwA, rwB := mustRW(t, fa, p), mustRW(t, fb, p)

	wA := mustLease(t, rwA.WriteLock(), ctxFor(t, 10*time.Second))
	gotB := leaseAsync(t, "writer B", 60*time.Second, rwB.WriteLock().Acquire)
	zktest.Eventually(t, 10*time.Second, "writer B to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })

	id, pw := proxy.Session()
	proxy.Blackhole(true)
	readErr := make(chan error, 1)
	var rA *recipes.Lease
	go func() {
		var err error
		rA, err = downgrade(ctxFor(t, 60*time.Second), rwA, wA)
		readErr <- err
	}()
	expireSession(t, zk, id, pw)
	wB := zktest.Receive(t, gotB, 30*time.Second, "writer B to acquire after A's session expired")
	proxy.Blackhole(false)
	err := zktest.Receive(t, readErr, 60*time.Second, "the downgrade to be granted or fail")
	if err == nil {
		t.Fatalf("downgraded read %s granted while writer B holds %s", rA.Path(), wB.Path())
	}
	if !errors.Is(err, recipes.ErrLockLost) {
		t.Errorf("downgrade error %v, want ErrLockLost", err)
	}
	if wB != nil {
		mustRelease(t, wB)
	}
	zktest.Eventually(t, 20*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fb, p)) == 0 })
}

// downgrade takes the read lock of rw while holding its write lease w.
func downgrade(ctx context.Context, rw *recipes.InterProcessReadWriteLock, w *recipes.Lease) (*recipes.Lease, error) {
	return rw.ReadLock().Downgrade(ctx, w)
}
