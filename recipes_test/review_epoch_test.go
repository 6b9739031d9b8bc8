package recipes_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Review defect 2 at the recipe level: a waiter's GetW on the holder's node loses its reply
// with the connection; while it reconnects (slowly, through a delaying proxy) its session is
// expired and the holder releases. The retried GetW, now in a new session, finds the node
// gone, which the handoff shortcut would take as "we hold". The grant must instead notice that
// the session changed: the lease it returns must stand on a node of the current session.
func TestHandoffAcrossAnExpiryGrantsOnlyALiveNode(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t, framework.WithSessionTimeout(20*time.Second))
	p := lockPath(t)
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
	id, pw := proxy.Session()

	proxy.Delay(400 * time.Millisecond) // every frame, the reconnect handshake included, is late
	proxy.CutReplyAfter(zktest.OpGetData)
	mb := mustMutex(t, fb, p)
	got := leaseAsync(t, "waiter", 60*time.Second, mb.Acquire)
	zktest.Eventually(t, 20*time.Second, "the waiter's GetW to be cut", func() bool { return proxy.Requests()[zktest.OpGetData] >= 1 })
	expireSession(t, zk, id, pw)
	mustRelease(t, la)
	lb := receive(t, got, "the waiter's grant")
	if lb == nil {
		t.FailNow()
	}
	proxy.Delay(0)
	st, err := fa.Exists(ctxFor(t, 10*time.Second), lb.Path())
	if err != nil {
		t.Fatal(err)
	}
	if st == nil || st.EphemeralOwner != fb.SessionID() {
		t.Fatalf("granted on %s, which is gone or not of the current session 0x%x (stat %+v)", lb.Path(), fb.SessionID(), st)
	}
	if lb.SessionID() != st.EphemeralOwner { // the chaos checkers match grants to expiries by it
		t.Fatalf("the lease names session 0x%x; its node belongs to 0x%x", lb.SessionID(), st.EphemeralOwner)
	}
	if fb.SessionID() == id {
		t.Fatalf("the session was not replaced (0x%x): the test did not force the expiry", id)
	}
	mustRelease(t, lb)
}
