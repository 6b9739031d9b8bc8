package recipes_test

import (
	"errors"
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

// idleOnce takes and releases m once, so that its node is kept idle, and returns the node's
// path and token.
func idleOnce(t *testing.T, m *recipes.InterProcessMutex) (string, int64) {
	t.Helper()
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
	if err := m.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("after Close the directory holds %v, want nothing", kids)
	}
	zktest.CheckNoWatches(t, shared, fw)
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
	if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.CheckNoWatches(t, shared, fa, fb)
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
	if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.CheckNoWatches(t, shared, fa, fb)
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
	if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.CheckNoWatches(t, shared, fa)
}
