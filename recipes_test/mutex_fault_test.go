package recipes_test

import (
	"errors"
	"path"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Curator's testKilledSession: a waiter whose session is expired by the
// server re-queues with a new node and still acquires.
func TestMutexKilledSessionWhileWaiting(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t)
	p := lockPath(t)
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)

	mb := mustMutex(t, fb, p)
	got := leaseAsync(t, "waiter", 60*time.Second, mb.Acquire)
	zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return len(zktest.Children(t, fa, p)) == 2 })
	holderNode := path.Base(la.Path())
	var waiterNode string
	for _, k := range zktest.Children(t, fa, p) {
		if k != holderNode {
			waiterNode = k
		}
	}
	oldID := fb.SessionID()
	id, pw := proxy.Session()
	expireSession(t, zk, id, pw)
	zktest.Eventually(t, 20*time.Second, "a new session and a new waiter node", func() bool {
		kids := zktest.Children(t, fa, p)
		return fb.SessionID() != oldID && len(kids) == 2 && !slices.Contains(kids, waiterNode)
	})
	mustRelease(t, la)
	lb := zktest.Receive(t, got, 20*time.Second, "the waiter to acquire after its session was killed")
	if tok(t, lb) <= tok(t, la) {
		t.Fatalf("token %d not above %d", tok(t, lb), tok(t, la))
	}
	mustRelease(t, lb)
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fa, p)) == 0 })
}

// A waiter whose watch request (getData on the node ahead) was in flight when its connection
// dropped, and whose session then expired, must see that its node went with the session and
// queue again at once. The framework retries the read in the new session, where it sets a
// watch on the node ahead, which is still there, while the waiter has no node at all. On the
// old code the waiter waited there, nodeless, until the holder released (this race made
// TestMutexKilledSessionWhileWaiting fail about one run in ten).
func TestMutexWaiterRequeuesWhenItsWatchLandsInANewSession(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t, framework.WithSessionTimeout(20*time.Second))
	p := lockPath(t)
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
	id, pw := proxy.Session()
	proxy.CutReplyAfter(zktest.OpGetData)
	got := leaseAsync(t, "waiter", 60*time.Second, mustMutex(t, fb, p).Acquire)
	zktest.Eventually(t, 20*time.Second, "the waiter's watch request to be cut", func() bool {
		return proxy.Requests()[zktest.OpGetData] >= 1 && !fb.State().IsConnected()
	})
	expireSession(t, zk, id, pw)
	zktest.Eventually(t, 20*time.Second, "the waiter to queue again in its new session", func() bool {
		sid := fb.SessionID()
		return sid != 0 && sid != id && ownedBy(t, fa, p, sid) == 1
	})
	mustRelease(t, la)
	lb := receive(t, got, "the waiter, after the holder released")
	if lb == nil {
		t.Fatal("waiter failed")
	}
	mustRelease(t, lb)
}

// Curator's testWaitingProcessKilledServer: the server dies and comes back
// while a process waits; the waiter acquires once the holder releases, not
// before.
func TestMutexWaitingWhileServerRestarts(t *testing.T) {
	zk := zktest.Start(t)
	p := lockPath(t)
	// 30 s sessions: a restart of the JVM on a loaded 2-core machine has taken longer than 10 s,
	// and both sessions then expired (seen once in a full run); this test is about the queue.
	fa := zktest.Connect(t, zk, framework.WithSessionTimeout(30*time.Second))
	fb := zktest.Connect(t, zk, framework.WithSessionTimeout(30*time.Second))
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
	mb := mustMutex(t, fb, p)
	got := leaseAsync(t, "waiter", 60*time.Second, mb.Acquire)
	zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return fb.Watches() == 2 }) // the holder's node and its own (prearm.go)
	if err := zk.Member(0).Kill(); err != nil {
		t.Fatal(err)
	}
	// Standard policy: a suspended holder is told at once.
	zktest.Receive(t, la.Done(), 15*time.Second, "the holder to be told of the suspension")
	if !errors.Is(la.Err(), recipes.ErrLockLost) || !errors.Is(la.Err(), framework.ErrSuspended) {
		t.Fatalf("holder's Err = %v, want ErrLockLost wrapping ErrSuspended", la.Err())
	}
	sid := fa.SessionID()
	if err := zk.Member(0).Restart(ctxFor(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	// The session survives the restart: the told holder keeps its node until it releases,
	// as Curator's does (on the old code the waiter took the lock right after the reconnect).
	zktest.Eventually(t, 30*time.Second, "the holder to reconnect", func() bool {
		return fa.State().IsConnected() && fa.SessionID() == sid
	})
	select {
	case lb := <-got:
		if lb != nil {
			mustRelease(t, lb)
		}
		t.Fatal("the lock was handed over after the restart before the told holder released it")
	case <-time.After(2 * time.Second):
	}
	mustRelease(t, la)
	lb := zktest.Receive(t, got, 30*time.Second, "the waiter to acquire after the server restart")
	mustRelease(t, lb)
}

// The holder's connection is blackholed past the session timeout: the holder
// learns that its lock may be lost before anybody else acquires it, and the
// next holder's fencing token is greater.
func TestMutexHolderToldBeforeNextHolder(t *testing.T) {
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	p := lockPath(t)
	const session = 2 * time.Second
	fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(session))
	fb := zktest.Connect(t, zk)
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)

	var order atomic.Int32 // 1 = holder told first, 2 = next holder first
	got := make(chan *recipes.Lease, 1)
	mb := mustMutex(t, fb, p)
	go func() {
		l, err := mb.Acquire(ctxFor(t, 60*time.Second))
		if err != nil {
			t.Errorf("next holder: %v", err)
		}
		order.CompareAndSwap(0, 2)
		got <- l
	}()
	zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return fb.Watches() == 2 }) // the holder's node and its own (prearm.go)
	proxy.Blackhole(true)
	go func() {
		<-la.Done()
		order.CompareAndSwap(0, 1)
	}()
	lb := zktest.Receive(t, got, 30*time.Second, "anybody to acquire after the holder's session expired")
	if order.Load() != 1 {
		t.Fatal("the next holder acquired before the old holder was told")
	}
	if tok(t, lb) <= tok(t, la) {
		t.Fatalf("next holder's token %d not above %d", tok(t, lb), tok(t, la))
	}
	proxy.Blackhole(false)
	mustRelease(t, lb)
	if err := la.Release(ctxFor(t, 20*time.Second)); err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Logf("release of a lost lease: %v", err)
	}
}
