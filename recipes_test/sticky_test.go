package recipes_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Integration tests of sticky leases (issue 28): the local re-grant, and every refusal of it.

// stickyMutex returns a sticky mutex on p with the idle time idle.
func stickyMutex(t testing.TB, fw *framework.Framework, p string, idle time.Duration) *recipes.InterProcessMutex {
	t.Helper()
	return mustMutex(t, fw, p, recipes.WithSticky(idle))
}

// idleOnce takes and releases m, so that its node is kept idle, and returns the node's path and
// token. A slot's first Release returns while the listing that sets its directory watch is in
// flight (the slot is being checked); a second cycle, local when the node is kept, waits for
// that listing's verdict, so that the node is idle and watched when idleOnce returns, and the
// listing is not counted by what the caller measures next. It returns the second cycle's node:
// the one left idle (a closed lock leaves none).
func idleOnce(t *testing.T, m *recipes.InterProcessMutex) (string, int64) {
	t.Helper()
	mustRelease(t, mustAcquire(t, m, 10*time.Second))
	l := mustAcquire(t, m, 10*time.Second)
	node, token := l.Path(), tok(t, l)
	mustRelease(t, l)
	return node, token
}

// sync makes one read on fw: its reply comes after every watch event the server sent fw
// before it (ZooKeeper orders them), so a sticky lock of fw has seen what happened before.
func syncRead(t *testing.T, fw *framework.Framework, p string) {
	t.Helper()
	if _, _, err := fw.Children(ctxFor(t, 10*time.Second), p); err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
}

// Issue 28: once a sticky mutex's node is idle, Acquire and Release make no request at all, the
// node (and so the token) stays, and Close deletes it. Before sticky leases each cycle cost a
// create, a listing and a delete.
func TestStickyRegrantMakesNoRequests(t *testing.T) {
	proxy := zktest.NewProxy(t, shared.Servers()[0])
	fw := zktest.Connect(t, shared, framework.WithDialer(proxy.Dialer()))
	p := lockPath(t)
	m := stickyMutex(t, fw, p, time.Minute)
	node, token := idleOnce(t, m)
	if kids := zktest.Children(t, fw, p); len(kids) != 1 {
		t.Fatalf("after a sticky release the directory holds %v, want our idle node", kids)
	}
	if n := fw.Watches(); n != 1 {
		t.Fatalf("the idle node holds %d watches, want 1 (the directory's)", n)
	}
	proxy.ResetCounts()
	for range 50 {
		l := mustAcquire(t, m, 10*time.Second)
		if l.Path() != node || tok(t, l) != token {
			t.Fatalf("re-grant got %s (token %d), want the idle node %s (token %d)", l.Path(), tok(t, l), node, token)
		}
		if err := l.Err(); err != nil {
			t.Fatalf("re-granted lease: Err = %v", err)
		}
		mustRelease(t, l)
	}
	var reqs int64
	for op, n := range proxy.Requests() {
		if op != zktest.OpPing {
			reqs += n
		}
	}
	if reqs != 0 {
		t.Fatalf("50 local re-grants made %d requests (%v), want 0", reqs, proxy.Requests())
	}
	closeEmpty(t, m, fw, p)
}

// Issue 28: an idle node goes after the idle time, and a node released after Close goes at once.
func TestStickyIdleTimeAndClose(t *testing.T) {
	fw := zktest.Connect(t, shared)
	p := lockPath(t)
	m := stickyMutex(t, fw, p, 300*time.Millisecond)
	idleOnce(t, m)
	zktest.Eventually(t, 10*time.Second, "the idle node to go after its idle time", func() bool {
		return len(zktest.Children(t, fw, p)) == 0
	})
	l := mustAcquire(t, m, 10*time.Second)
	if err := m.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	mustRelease(t, l)
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("a lease held at Close, released: the directory holds %v, want nothing", kids)
	}
	idleOnce(t, m) // closed: a plain lock now
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("after Close a release kept %v, want nothing", kids)
	}
	zktest.CheckNoWatches(t, shared, fw)
}

// Issue 28: a contender that queues behind an idle node (another session, plain Go) gets the
// lock without any change on its side, and the sticky process is refused a local re-grant from
// then on: its TryAcquire is busy while the contender holds, and its next Acquire is a new node
// with a larger token.
func TestStickyRefusedAfterAContenderQueued(t *testing.T) {
	fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t)
	a := stickyMutex(t, fa, p, time.Minute)
	node, token := idleOnce(t, a)
	got := leaseAsync(t, "plain contender", 20*time.Second, mustMutex(t, fb, p).Acquire)
	lb := receive(t, got, "the contender's grant")
	if lb == nil {
		t.FailNow()
	}
	syncRead(t, fa, p)
	if l, err := a.TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("TryAcquire while the contender holds: %v, %v; want ErrLocked", l, err)
	}
	mustRelease(t, lb)
	l := mustAcquire(t, a, 10*time.Second)
	if l.Path() == node || tok(t, l) <= token {
		t.Fatalf("after the handover got %s (token %d), want a new node with a token above %d", l.Path(), tok(t, l), token)
	}
	mustRelease(t, l)
	closeClean(t, a, fa, fb)
}

// Issue 28: an idle node deleted by another client is never re-granted: the next Acquire
// queues a new node.
func TestStickyRefusedAfterTheNodeWasDeleted(t *testing.T) {
	fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t)
	a := stickyMutex(t, fa, p, time.Minute)
	node, _ := idleOnce(t, a)
	if err := fb.Delete(ctxFor(t, 10*time.Second), node); err != nil {
		t.Fatal(err)
	}
	syncRead(t, fa, p)
	l, err := a.TryAcquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() == node {
		t.Fatalf("re-granted the deleted node %s", node)
	}
	mustRelease(t, l)
	closeClean(t, a, fa, fb)
}

// Issue 28: an idle node of a session that expired is never re-granted: the next Acquire queues
// a new node, with a larger token.
func TestStickyRefusedAfterTheSessionExpired(t *testing.T) {
	fa := zktest.Connect(t, shared, framework.WithSessionTimeout(4*time.Second))
	p := lockPath(t)
	a := stickyMutex(t, fa, p, time.Minute)
	node, token := idleOnce(t, a)
	if err := zktest.Expire(ctxFor(t, 20*time.Second), shared, fa); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, a, 20*time.Second)
	if l.Path() == node || tok(t, l) <= token {
		t.Fatalf("after the expiry got %s (token %d), want a new node with a token above %d", l.Path(), tok(t, l), token)
	}
	mustRelease(t, l)
	closeClean(t, a, fa)
}

// deleteHeldNode deletes l's node through fb (another client) and fails the test unless l is
// told, by its Done closing, within 20 s.
func deleteHeldNode(t *testing.T, fb *framework.Framework, l *recipes.Lease) {
	t.Helper()
	if err := fb.Delete(ctxFor(t, 10*time.Second), l.Path()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the lease was not told that its node was deleted")
	}
}

// Issue 28: a sticky lease behaves as any lease when another client deletes its node: Done
// closes and Err wraps ErrLockLost and ErrNodeDeleted, and Release returns nil; the next Acquire
// queues a new node. Neither the first lease of a sticky lock nor a local re-grant sets a watch
// on its own node: the slot's directory watch tells them, and the lock holds one watch.
func TestStickyLeaseLostWhenItsNodeIsDeleted(t *testing.T) {
	for _, regrant := range []bool{false, true} {
		t.Run(map[bool]string{false: "first lease", true: "local re-grant"}[regrant], func(t *testing.T) {
			fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
			p := lockPath(t)
			a := stickyMutex(t, fa, p, time.Minute)
			if regrant {
				idleOnce(t, a)
			}
			l := mustAcquire(t, a, 10*time.Second)
			zktest.Eventually(t, 10*time.Second, "one watch", func() bool { return fa.Watches() == 1 })
			deleteHeldNode(t, fb, l)
			if err := l.Err(); !errors.Is(err, recipes.ErrLockLost) || !errors.Is(err, recipes.ErrNodeDeleted) {
				t.Fatalf("Err = %v, want ErrLockLost and ErrNodeDeleted", err)
			}
			mustRelease(t, l)
			l2 := mustAcquire(t, a, 10*time.Second)
			if l2.Path() == l.Path() {
				t.Fatalf("re-granted the deleted node %s", l.Path())
			}
			mustRelease(t, l2)
			closeClean(t, a, fa, fb)
		})
	}
}

// Issue 28: sticky mutexes of two sessions alternating on one lock (the worst case for caching)
// never admit two holders and never hang, and a TryAcquire while a local lease holds the cached
// node is ErrSelfLocked, with no request.
func TestStickyAlternatingSessionsExclude(t *testing.T) {
	fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t)
	var g zktest.Gauge
	var wg sync.WaitGroup
	for _, fw := range []*framework.Framework{fa, fb} {
		m := stickyMutex(t, fw, p, time.Minute)
		contend(t, &wg, 40, &g, 0, func() (func() error, error) {
			l, err := m.Acquire(ctxFor(t, 30*time.Second))
			if err != nil {
				return nil, err
			}
			return func() error { return l.Release(ctxFor(t, 10*time.Second)) }, nil
		})
		t.Cleanup(func() { m.Close(context.Background()) })
	}
	wg.Wait()
	if g.Max() != 1 {
		t.Fatalf("%d holders at once, want 1", g.Max())
	}
	m := stickyMutex(t, fa, lockPath(t), time.Minute)
	l := mustAcquire(t, m, 10*time.Second)
	if _, err := m.TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrSelfLocked) {
		t.Fatalf("TryAcquire while a local lease holds: %v, want ErrSelfLocked", err)
	}
	mustRelease(t, l)
	if err := m.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}

// Issue 28: once a conflicting contender is seen while a sticky lease is held, the directory is
// no longer watched, so the lease watches its own node (one getData) as a plain lease does: a
// delete by another client still ends it at the notification.
func TestStickyLeaseAfterAConflictWatchesItsNode(t *testing.T) {
	proxy := zktest.NewProxy(t, shared.Servers()[0])
	fa, fb := zktest.Connect(t, shared, framework.WithDialer(proxy.Dialer())), zktest.Connect(t, shared)
	p := lockPath(t)
	a := stickyMutex(t, fa, p, time.Minute)
	idleOnce(t, a)
	l := mustAcquire(t, a, 10*time.Second)
	proxy.ResetCounts()
	got := leaseAsync(t, "contender", 30*time.Second, mustMutex(t, fb, p).Acquire)
	zktest.Eventually(t, 10*time.Second, "the held lease to watch its own node", func() bool {
		return proxy.Requests()[zktest.OpGetData] == 1
	})
	deleteHeldNode(t, fb, l)
	if err := l.Err(); !errors.Is(err, recipes.ErrNodeDeleted) {
		t.Fatalf("Err = %v, want ErrNodeDeleted", err)
	}
	mustRelease(t, l)
	lb := receive(t, got, "the contender's grant")
	if lb == nil {
		t.FailNow()
	}
	mustRelease(t, lb)
	closeClean(t, a, fa, fb)
}

// closeClean closes a sticky lock, which must succeed, and checks that fws hold no watch.
func closeClean(t *testing.T, c interface{ Close(context.Context) error }, fws ...*framework.Framework) {
	t.Helper()
	if err := c.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.CheckNoWatches(t, shared, fws...)
}

// closeEmpty closes a sticky lock of fw on p, and checks that it left nothing: no node in p, no
// watch.
func closeEmpty(t *testing.T, c interface{ Close(context.Context) error }, fw *framework.Framework, p string) {
	t.Helper()
	if err := c.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("after Close the directory holds %v, want nothing", kids)
	}
	zktest.CheckNoWatches(t, shared, fw)
}
