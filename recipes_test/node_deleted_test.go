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

// ended is what every held thing offers: a single lease, a multi-lock's set, a leader's term.
type ended interface {
	Done() <-chan struct{}
	Err() error
	Release(ctx context.Context) error
}

// deletedCase takes one lease kind on fw and returns it with the path of the node that an
// operator deletes (a member's, for a set).
type deletedCase struct {
	name    string
	acquire func(t *testing.T, fw *framework.Framework, p string) (ended, string)
	leases  int // the leases it holds, each with a watch on its own node; 0 means 1
}

// watching waits until each lease of c holds its own-node watch (sent after the grant, unless
// the loop set it), so that the test sees the watch's event, not a getData that found no node.
func (c deletedCase) watching(t *testing.T, fw *framework.Framework) {
	t.Helper()
	want := max(c.leases, 1)
	zktest.Eventually(t, 10*time.Second, "the own-node watches", func() bool { return fw.Watches() == want })
}

// heldCase turns a loss-path recipe into a deletedCase.
func heldCase(r heldLock) deletedCase {
	return deletedCase{r.name, func(t *testing.T, fw *framework.Framework, p string) (ended, string) {
		h, err := r.acquire(ctxFor(t, 10*time.Second), fw, p)
		if err != nil {
			t.Fatal(err)
		}
		return h, h.Path()
	}, 1}
}

// multiCase takes a multi-lock over two paths under p and names the node of its second lock.
func multiCase(name string, build func(*framework.Framework, ...string) (*recipes.InterProcessMultiLock, error)) deletedCase {
	return deletedCase{name, func(t *testing.T, fw *framework.Framework, p string) (ended, string) {
		m, err := build(fw, p+"/a", p+"/b")
		if err != nil {
			t.Fatal(err)
		}
		ml, err := m.Acquire(ctxFor(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return ml, ml.Leases()[1].Path()
	}, 2}
}

func nodeDeletedCases() []deletedCase {
	cases := make([]deletedCase, 0, len(lossPathRecipes)+4)
	for _, r := range lossPathRecipes {
		cases = append(cases, heldCase(r))
	}
	cases = append(cases,
		deletedCase{"read", func(t *testing.T, fw *framework.Framework, p string) (ended, string) {
			rw, err := recipes.NewReadWriteLock(fw, p)
			if err != nil {
				t.Fatal(err)
			}
			l, err := rw.ReadLock().Acquire(ctxFor(t, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			return l, l.Path()
		}, 1},
		deletedCase{"mutex-after-handoff", func(t *testing.T, fw *framework.Framework, p string) (ended, string) {
			// Granted by the watch on the node ahead (the loop's own-node check after a
			// handoff), not by a listing.
			m := mustMutex(t, fw, p)
			first := mustAcquire(t, m, 10*time.Second)
			got := leaseAsync(t, "waiter", 20*time.Second, m.Acquire)
			zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool {
				return len(zktest.Children(t, fw, p)) == 2
			})
			mustRelease(t, first)
			l := receive(t, got, "the waiter's grant")
			if l == nil {
				t.FailNow()
			}
			return l, l.Path()
		}, 1},
		multiCase("multi", recipes.NewMultiMutex),
		multiCase("multi-tx", recipes.NewTxMultiMutex),
	)
	return cases
}

// Issue 24.2: a holder whose node is deleted by someone else (an operator, another client) is
// told within one notification: Done closes, Err wraps ErrLockLost and ErrNodeDeleted, and
// Release returns nil at once. No watch is left, on the client or the server. On the old code
// the holder was never told (Done open, Err nil) while the next waiter was granted.
//
// "At once" is checked by what Release asks of ZooKeeper, not by a clock: the holder talks
// through a proxy that counts its requests, and the deleted node is gone, so its Release sends
// nothing for it (no delete, no retried delete, none in the background): no request at all for
// a single lease, and for a set only the one delete (a delete, or a multi for a transactional
// set) of the member still held. Release's context deadline is a hang detector only: a Release
// that waited on anything to its end fails the test by its context's error, however loaded the
// machine.
func TestNodeDeletedEndsLease(t *testing.T) {
	for _, c := range nodeDeletedCases() {
		t.Run(c.name, func(t *testing.T) {
			zk := shared
			p := lockPath(t)
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()))
			fb := zktest.Connect(t, zk)
			h, node := c.acquire(t, fa, p)
			c.watching(t, fa)
			if err := fb.Delete(ctxFor(t, 10*time.Second), node); err != nil {
				t.Fatalf("operator's delete of %s: %v", node, err)
			}
			select {
			case <-h.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("holder never told that its node %s was deleted (Err = %v)", node, h.Err())
			}
			if err := h.Err(); !errors.Is(err, recipes.ErrLockLost) || !errors.Is(err, recipes.ErrNodeDeleted) {
				t.Fatalf("Err = %v, want ErrLockLost and ErrNodeDeleted", err)
			}
			proxy.ResetCounts()
			rctx := ctxFor(t, 30*time.Second) // a hang detector, not a speed bound
			if err := h.Release(rctx); err != nil || rctx.Err() != nil {
				t.Fatalf("Release of a deleted lease: %v (its context: %v), want nil, before its deadline", err, rctx.Err())
			}
			// Watches are gone once every delete of the release has been answered; a delete of
			// the gone node sent in the background would be counted by then too.
			zktest.CheckNoWatches(t, zk, fa, fb)
			got := proxy.Requests()
			held := max(c.leases, 1) - 1 // the members of a set still held: each one delete
			if sent := got[zktest.OpDelete] + got[zktest.OpMulti]; sent != int64(held) || total(got) != sent {
				t.Errorf("requests of the Release of a lease whose node %s was deleted: %v, want %d delete(s) "+
					"(of the members still held) and nothing else", node, got, held)
			}
		})
	}
}

// total is the sum of a proxy's request counts.
func total(counts map[int32]int64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// Issue 24.2, the other side: our own release deletes our node, which fires the watch the
// lease keeps on it; that is a release, never a loss, and the watch is consumed, not leaked.
func TestOwnReleaseIsNotNodeDeleted(t *testing.T) {
	for _, c := range nodeDeletedCases() {
		t.Run(c.name, func(t *testing.T) {
			zk := shared
			p := lockPath(t)
			fa := zktest.Connect(t, zk)
			h, _ := c.acquire(t, fa, p)
			c.watching(t, fa)
			if err := h.Release(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			if err := h.Err(); !errors.Is(err, recipes.ErrReleased) || errors.Is(err, recipes.ErrLockLost) {
				t.Fatalf("Err after our own release = %v, want ErrReleased only", err)
			}
			zktest.CheckNoWatches(t, zk, fa)
		})
	}
}
