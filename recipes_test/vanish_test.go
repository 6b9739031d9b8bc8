package recipes_test

import (
	"path"
	"slices"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// deleteNode deletes a node as an operator would, from another session.
func deleteNode(t *testing.T, fw *framework.Framework, p string) {
	t.Helper()
	if err := fw.Delete(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatalf("delete %s: %v", p, err)
	}
}

// mustStand fails unless every path exists as an ephemeral node of fw's current session.
func mustStand(t *testing.T, admin, fw *framework.Framework, paths ...string) {
	t.Helper()
	for _, p := range paths {
		st, err := admin.Exists(ctxFor(t, 10*time.Second), p)
		if err != nil || st == nil || st.EphemeralOwner != fw.SessionID() {
			t.Fatalf("granted on %s: stat %+v (%v), want a node of session 0x%x", p, st, err, fw.SessionID())
		}
	}
}

// A waiter right behind the holder would be granted by the holder's delete alone (the handoff
// without a listing). If its own node was deleted meanwhile (an operator, a tool), it must not
// be granted on the vanished node, which another contender may pass: it queues again, as after
// an expiry, and is granted on a node that stands.
func TestMutexWaiterNodeDeletedBehindHolder(t *testing.T) {
	zk, p := shared, lockPath(t)
	fa, fb, admin := zktest.Connect(t, zk), zktest.Connect(t, zk), zktest.Connect(t, zk)
	la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
	got := leaseAsync(t, "waiter", 60*time.Second, mustMutex(t, fb, p).Acquire)
	zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return len(zktest.Children(t, admin, p)) == 2 })
	kids := zktest.Children(t, admin, p)
	waiter := kids[0]
	if path.Join(p, waiter) == la.Path() {
		waiter = kids[1]
	}
	deleteNode(t, admin, path.Join(p, waiter))
	mustRelease(t, la)
	lb := receive(t, got, "the waiter's grant")
	if lb == nil {
		t.FailNow()
	}
	if path.Base(lb.Path()) == waiter {
		t.Fatalf("granted on %s, the node deleted while it waited", lb.Path())
	}
	mustStand(t, admin, fb, lb.Path())
	mustRelease(t, lb)
}

// A transactional set waiting for one lock holds the others from its first listing. If one of
// its nodes is deleted meanwhile, the grant must not stand on it: the whole set queues again
// and is granted on nodes that stand. Both ends of the wait are covered: the blocker's delete
// alone granting the last lock (a mutex: the handoff without a listing), and a wake that lists
// the blocked directory again (a write lock, whose driver always lists).
func TestTxMultiLockNodeDeletedWhileWaiting(t *testing.T) {
	for _, tt := range []struct {
		name  string
		block func(t *testing.T, fw *framework.Framework, p string) recipes.Locker
	}{
		{"mutex, granted by the delete", func(t *testing.T, fw *framework.Framework, p string) recipes.Locker {
			return mustMutex(t, fw, p)
		}},
		{"write lock, granted by a listing", func(t *testing.T, fw *framework.Framework, p string) recipes.Locker {
			rw, err := recipes.NewReadWriteLock(fw, p)
			if err != nil {
				t.Fatal(err)
			}
			return rw.WriteLock()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			zk, p := shared, lockPath(t)
			a, b, c := p+"/a", p+"/b", p+"/c"
			fa, fb, admin := zktest.Connect(t, zk), zktest.Connect(t, zk), zktest.Connect(t, zk)
			blocker, err := tt.block(t, fa, b).Hold(ctxFor(t, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			m, err := recipes.NewTxMultiLock(mustMutex(t, fb, a), tt.block(t, fb, b), mustMutex(t, fb, c))
			if err != nil {
				t.Fatal(err)
			}
			got := acquireMultiAsync(m, ctxFor(t, 60*time.Second))
			zktest.Eventually(t, 10*time.Second, "the set to queue", func() bool {
				return slices.Equal(countNodes(t, admin, a, b, c), []int{1, 2, 1})
			})
			gone := path.Join(a, zktest.Children(t, admin, a)[0])
			deleteNode(t, admin, gone)
			if err := blocker.Release(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			r := receive(t, got, "the set after the blocker released")
			if r.err != nil {
				t.Fatalf("Acquire: %v", r.err)
			}
			var paths []string
			for _, h := range r.l.Leases() {
				if h.Path() == gone {
					t.Fatalf("granted on %s, the node deleted while it waited", gone)
				}
				paths = append(paths, h.Path())
			}
			mustStand(t, admin, fb, paths...)
			releaseMulti(t, r.l)
		})
	}
}

// The transactional set's form of TestMutexWaiterRequeuesWhenItsWatchLandsInANewSession: its
// watch request on the node ahead is cut with the connection and the session expires; the read,
// retried in the new session, sets a watch there on the holder's node, which still stands,
// while the set's nodes went with the old session. The set must queue again at once, not wait
// nodeless until the holder releases.
func TestTxMultiLockRequeuesWhenItsWatchLandsInANewSession(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t, framework.WithSessionTimeout(20*time.Second))
	p := lockPath(t)
	a, b, c := p+"/a", p+"/b", p+"/c"
	blocker := mustAcquire(t, mustMutex(t, fa, b), 10*time.Second)
	id, pw := proxy.Session()
	proxy.CutReplyAfter(zktest.OpGetData)
	got := acquireMultiAsync(mustTx(t, fb, a, b, c), ctxFor(t, 60*time.Second))
	zktest.Eventually(t, 20*time.Second, "the set's watch request to be cut", func() bool {
		return proxy.Requests()[zktest.OpGetData] >= 1 && !fb.State().IsConnected()
	})
	expireSession(t, zk, id, pw)
	zktest.Eventually(t, 20*time.Second, "the set to queue again in its new session", func() bool {
		sid := fb.SessionID()
		return sid != 0 && sid != id && ownedBy(t, fa, a, sid) == 1 && ownedBy(t, fa, b, sid) == 1 && ownedBy(t, fa, c, sid) == 1
	})
	mustRelease(t, blocker)
	r := receive(t, got, "the set, after the blocker released")
	if r.err != nil {
		t.Fatalf("Acquire: %v", r.err)
	}
	releaseMulti(t, r.l)
}
