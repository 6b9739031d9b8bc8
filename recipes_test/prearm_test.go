package recipes_test

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The first waiter behind a holder is granted by the holder's delete alone (its predecessor was
// first in its listing). Our own node must still stand for that, and the watch set on it before
// the wait proves it: between the holder's release and the grant, the waiter sends nothing.
// Before, it read its own node after the wake: one round trip on the hand-off's critical path.
func TestHandoffByDeleteSendsNoRequest(t *testing.T) {
	zk, p := shared, lockPath(t)
	var log traceLog
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk, framework.WithTracer(log.add))
	for _, cancellable := range []bool{true, false} {
		la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
		mb := mustMutex(t, fb, p)
		acquire := mb.Acquire
		if !cancellable { // the loop's other mode: every burst on the caller's goroutine
			acquire = func(context.Context) (*recipes.Lease, error) { return mb.Acquire(context.Background()) }
		}
		got := leaseAsync(t, "waiter", 30*time.Second, acquire)
		zktest.Eventually(t, 10*time.Second, "the waiter to watch the holder", func() bool { return log.saw("getDataW", la.Path()) })
		_, before := log.opsFrom(0)
		mustRelease(t, la)
		lb := receive(t, got, "the waiter's grant")
		if lb == nil {
			t.FailNow()
		}
		sent, _ := log.opsFrom(before)
		if len(sent) != 0 {
			var names []string
			for _, op := range sent {
				names = append(names, op.Name+" "+path.Base(op.Path))
			}
			t.Errorf("cancellable=%v: the waiter sent %v between the holder's release and its grant, want nothing", cancellable, names)
		}
		mustStand(t, fa, fb, lb.Path())
		mustRelease(t, lb)
	}
}

// The other side of that hand-off: across a reconnect the watch set before the wait proves
// nothing (the server reports the changes made meanwhile in any order), so a waiter whose node
// was deleted while it was cut off, and whose holder released meanwhile, is not granted on the
// vanished node: it queues again on a node that stands. SessionPolicy keeps the listing's epoch
// live across the reconnect, so the epoch check alone would not refuse the grant.
func TestHandoffByDeleteAcrossReconnect(t *testing.T) {
	zk, p := shared, lockPath(t)
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	var log traceLog
	fa, admin := zktest.Connect(t, zk), zktest.Connect(t, zk)
	fb := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()),
		framework.WithErrorPolicy(framework.SessionPolicy), framework.WithTracer(log.add))
	for round := 0; round < 4; round++ {
		la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
		got := leaseAsync(t, "waiter", 60*time.Second, mustMutex(t, fb, p).Acquire)
		zktest.Eventually(t, 10*time.Second, "the waiter to watch the holder", func() bool { return log.saw("getDataW", la.Path()) })
		var waiter string
		for _, k := range zktest.Children(t, admin, p) {
			if path.Join(p, k) != la.Path() {
				waiter = path.Join(p, k)
			}
		}
		proxy.Blackhole(true)
		deleteNode(t, admin, waiter)
		mustRelease(t, la)
		proxy.Blackhole(false)
		lb := receive(t, got, "the waiter's grant")
		if lb == nil {
			t.FailNow()
		}
		if lb.Path() == waiter {
			t.Fatalf("round %d: granted on %s, deleted while the waiter was cut off", round, waiter)
		}
		mustStand(t, admin, fb, lb.Path())
		mustRelease(t, lb)
	}
}
