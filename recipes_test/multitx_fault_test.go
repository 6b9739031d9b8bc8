package recipes_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// txResult is the outcome of an asynchronous multi-lock Acquire.
type txResult struct {
	l   *recipes.MultiLease
	err error
}

// acquireMultiAsync runs m.Acquire(ctx) on a goroutine.
func acquireMultiAsync(m *recipes.InterProcessMultiLock, ctx context.Context) <-chan txResult {
	got := make(chan txResult, 1)
	go func() {
		l, err := m.Acquire(ctx)
		got <- txResult{l, err}
	}()
	return got
}

// All or nothing: a set one of whose locks is held stays queued; when its ctx ends (deadline or
// cancel) Acquire returns at once and none of its nodes is left, in any directory, once the
// deletes it left to the background (its ctx had ended) have finished; no watch is left once the
// blocker released; and the set is taken once the blocker is gone.
func TestTxMultiLockFailureLeavesNothing(t *testing.T) {
	for _, cancelIt := range []bool{false, true} {
		zk := shared
		p := lockPath(t)
		a, b, c := p+"/a", p+"/b", p+"/c"
		fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
		blocker := mustAcquire(t, mustMutex(t, fa, b), 10*time.Second)
		m := mustTx(t, fb, c, b, a)
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		if !cancelIt {
			ctx, cancel = context.WithTimeout(context.Background(), 700*time.Millisecond)
		}
		got := acquireMultiAsync(m, ctx)
		zktest.Eventually(t, 10*time.Second, "the set to queue", func() bool {
			return slices.Equal(countNodes(t, fa, a, b, c), []int{1, 2, 1}) && fb.Watches() == 1
		})
		if cancelIt {
			cancel()
		}
		r := receive(t, got, "Acquire after its ctx ended")
		cancel()
		if want := map[bool]error{false: context.DeadlineExceeded, true: context.Canceled}[cancelIt]; !errors.Is(r.err, want) {
			t.Fatalf("Acquire: %v, want %v", r.err, want)
		}
		zktest.Eventually(t, 10*time.Second, "only the blocker's node after a failed acquire", func() bool {
			return slices.Equal(countNodes(t, fa, a, b, c), []int{0, 1, 0})
		})
		mustRelease(t, blocker)
		zktest.CheckNoWatches(t, zk, fa, fb)
		releaseMulti(t, mustMulti(t, m))
	}
}

// A waiting set whose session is expired queues the whole set again in the new session (new
// nodes in every directory), and is granted once the blocker releases, on nodes of the current
// session.
func TestTxMultiLockRequeuesAfterExpiry(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t)
	p := lockPath(t)
	a, b, c := p+"/a", p+"/b", p+"/c"
	blocker := mustAcquire(t, mustMutex(t, fa, b), 10*time.Second)
	got := acquireMultiAsync(mustTx(t, fb, a, b, c), ctxFor(t, 60*time.Second))
	zktest.Eventually(t, 10*time.Second, "the set to queue", func() bool {
		return slices.Equal(countNodes(t, fa, a, b, c), []int{1, 2, 1})
	})
	oldA, oldC := zktest.Children(t, fa, a)[0], zktest.Children(t, fa, c)[0]
	oldID := fb.SessionID()
	id, pw := proxy.Session()
	expireSession(t, zk, id, pw)
	zktest.Eventually(t, 20*time.Second, "a new session and the set queued again", func() bool {
		ka, kc := zktest.Children(t, fa, a), zktest.Children(t, fa, c)
		return fb.SessionID() != oldID && len(ka) == 1 && len(kc) == 1 && ka[0] != oldA && kc[0] != oldC &&
			len(zktest.Children(t, fa, b)) == 2
	})
	stillWaiting(t, got, "the re-queued set while b is held")
	mustRelease(t, blocker)
	r := receive(t, got, "the set after the blocker released")
	if r.err != nil {
		t.Fatalf("Acquire: %v", r.err)
	}
	for _, h := range r.l.Leases() {
		st, err := fa.Exists(ctxFor(t, 10*time.Second), h.Path())
		if err != nil || st == nil || st.EphemeralOwner != fb.SessionID() {
			t.Fatalf("granted on %s: stat %+v (%v), want a node of session 0x%x", h.Path(), st, err, fb.SessionID())
		}
	}
	releaseMulti(t, r.l)
}

// A transaction applied whose reply was lost is found again (Sync, then our GUID) and adopted:
// no second transaction, one node per directory, owned by our session.
func TestTxMultiLockAdoptsALostReply(t *testing.T) {
	proxy, fa, fb := directAndProxied(t)
	p := lockPath(t)
	dirs := []string{p + "/a", p + "/b", p + "/c"}
	for _, d := range dirs { // persistent, so that they exist before the cut transaction
		if _, err := fa.Create(ctxFor(t, 10*time.Second), d, nil, framework.CreatingParents()); err != nil {
			t.Fatal(err)
		}
	}
	proxy.ResetCounts()
	proxy.CutReplyAfter(zktest.OpMulti)
	l, err := mustTx(t, fb, dirs...).Acquire(ctxFor(t, 30*time.Second))
	if err != nil {
		t.Fatalf("Acquire after a lost reply: %v", err)
	}
	if n := proxy.Requests()[zktest.OpMulti]; n != 1 {
		t.Fatalf("%d transactions sent, want the cut one alone (adopted)", n)
	}
	if n := countNodes(t, fa, dirs...); !slices.Equal(n, []int{1, 1, 1}) {
		t.Fatalf("nodes per directory: %v, want one each", n)
	}
	for _, h := range l.Leases() {
		st, err := fa.Exists(ctxFor(t, 10*time.Second), h.Path())
		if err != nil || st == nil || st.EphemeralOwner != fb.SessionID() {
			t.Fatalf("%s: stat %+v (%v), want a node of session 0x%x", h.Path(), st, err, fb.SessionID())
		}
	}
	releaseMulti(t, l)
}

// The lease of a set: one token per lock (the set's transaction's zxid), above the last
// holder's; Guard makes a transaction commit only while every node
// stands; Done closes with ErrLockLost when the connection drops, the nodes stay until Release
// (the loss grace), and Release of the lost set returns nil and deletes them; a second Release
// is ErrNotHeld.
func TestTxMultiLockLease(t *testing.T) {
	proxy, fa, fb := directAndProxied(t, framework.WithSessionTimeout(20*time.Second))
	p := lockPath(t)
	dirs := []string{p + "/a", p + "/b"}
	l := mustMulti(t, mustTx(t, fb, dirs...))
	toks, err := l.Tokens(ctxFor(t, 10*time.Second))
	if err != nil || len(toks) != 2 || toks[0] <= 0 || toks[0] != toks[1] {
		t.Fatalf("tokens %v (%v), want the one zxid of the set's transaction", toks, err)
	}
	data := p + "/data"
	if _, err := fa.Create(ctxFor(t, 10*time.Second), data, nil, framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.Multi(ctxFor(t, 10*time.Second), append(l.Guard(), framework.SetOp(data, []byte("x"), -1))...); err != nil {
		t.Fatalf("guarded write while held: %v", err)
	}
	proxy.DropConnections()
	zktest.Receive(t, l.Done(), 10*time.Second, "Done to close when the connection dropped")
	if !errors.Is(l.Err(), recipes.ErrLockLost) {
		t.Fatalf("Err: %v, want ErrLockLost", l.Err())
	}
	zktest.Eventually(t, 10*time.Second, "a reconnect", func() bool { return fb.State().IsConnected() })
	if n := countNodes(t, fa, dirs...); !slices.Equal(n, []int{1, 1}) {
		t.Fatalf("nodes of the lost set before Release: %v, want kept (grace)", n)
	}
	if err := l.Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatalf("Release of a lost set: %v", err)
	}
	zktest.Eventually(t, 10*time.Second, "the lost set's nodes deleted", func() bool {
		return slices.Equal(countNodes(t, fa, dirs...), []int{0, 0})
	})
	if err := l.Release(ctxFor(t, time.Second)); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("second Release: %v, want ErrNotHeld", err)
	}
	l2 := mustMulti(t, mustTx(t, fb, dirs...))
	if toks2, err := l2.Tokens(ctxFor(t, 10*time.Second)); err != nil || toks2[0] <= toks[0] || toks2[1] <= toks[1] {
		t.Fatalf("tokens of the next holder %v (%v), want above %v", toks2, err, toks)
	}
	if err := fa.Delete(ctxFor(t, 10*time.Second), l2.Leases()[1].Path()); err != nil {
		t.Fatal(err)
	}
	if _, err := fb.Multi(ctxFor(t, 10*time.Second), append(l2.Guard(), framework.SetOp(data, []byte("y"), -1))...); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("guarded write with a node gone: %v, want ErrNoNode", err)
	}
	releaseMulti(t, l2) // one node gone: the transaction fails, the deletes go one by one
	if n := countNodes(t, fa, dirs...); !slices.Equal(n, []int{0, 0}) {
		t.Fatalf("nodes after Release: %v", n)
	}
}
