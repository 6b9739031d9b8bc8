package recipes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 24.8: a Downgrade whose write lease is lost (its Done closed by Suspended) during the
// call must fail with ErrLockLost, not return a read lease derived from it. A blackhole and a
// reset of the holder's connection are forced between Downgrade's checks and its create; the
// session survives, so the write node is still in the listing that decides (kept through the
// loss grace), and only the write lease's own state says it is lost. On the old code Downgrade
// returned a read lease.
func TestDowngradeOfWriteLeaseLostDuringTheCall(t *testing.T) {
	proxy := zktest.NewProxy(t, servers()[0])
	p := zktest.UniquePath(t, "/tests")
	fa := testFramework(t, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	rw, err := recipes.NewReadWriteLock(fa, p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := rw.WriteLock().Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	sid := fa.SessionID()
	told := make(chan bool, 1)
	defer recipes.SetDowngradeHook(func() {
		proxy.Blackhole(true)
		proxy.DropConnections()
		select {
		case <-w.Done():
			told <- true
		case <-time.After(20 * time.Second):
			told <- false
		}
		proxy.Blackhole(false)
	})()
	r, err := rw.ReadLock().Downgrade(testCtx(t, 30*time.Second), w)
	if !<-told {
		t.Fatal("the write lease was never told of the blackhole")
	}
	if fa.SessionID() != sid {
		t.Fatalf("the session changed (0x%x, was 0x%x): the test needs it to survive", fa.SessionID(), sid)
	}
	if err == nil {
		r.Release(testCtx(t, 10*time.Second))
		t.Fatalf("Downgrade returned read lease %s of write lease %s lost during the call (%v)", r.Path(), w.Path(), w.Err())
	}
	if !errors.Is(err, recipes.ErrLockLost) {
		t.Fatalf("Downgrade of a write lease lost during the call: %v, want ErrLockLost", err)
	}
	if err := w.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatalf("Release of the lost write lease: %v", err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes left", func() bool { return len(zktest.Children(t, fa, p)) == 0 })
}
