package recipes_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Review of issue 28's sticky leases: interleavings that must not make a local grant wrong.

// A revocation request (Revoke writes __REVOKE__ into the holder's node) asks for the lock back,
// as a conflicting contender does: the release of a revoked sticky lease deletes its node. Kept
// idle, the node would still carry __REVOKE__, and every later local lease would be revoked the
// moment it is granted, by a request made for an earlier holder.
func TestStickyRevokedLeaseIsNotKept(t *testing.T) {
	fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t)
	revoked := make(chan *recipes.Lease, 4)
	a := mustMutex(t, fa, p, recipes.WithSticky(time.Minute), recipes.WithRevocation(func(l *recipes.Lease) { revoked <- l }))
	t.Cleanup(func() { a.Close(ctxFor(t, 10*time.Second)) })
	l := mustAcquire(t, a, 10*time.Second)
	if err := recipes.Revoke(ctxFor(t, 10*time.Second), fb, l.Path()); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, revoked, "the revocation"); got != l {
		t.Fatalf("revocation listener got %v, want the lease", got)
	}
	mustRelease(t, l)
	if kids := zktest.Children(t, fa, p); len(kids) != 0 {
		t.Fatalf("after the release of a revoked sticky lease the directory holds %v, want nothing", kids)
	}
	l2 := mustAcquire(t, a, 10*time.Second)
	if l2.Path() == l.Path() {
		t.Fatalf("the revoked node %s was re-granted locally", l.Path())
	}
	mustRelease(t, l2)
}

// A TryAcquire of one half of a sticky read-write lock while only the other half's idle node
// stands in this process (nobody holds anything) is granted, as it is without sticky leases:
// the idle node of our own process is no holder to give up to.
func TestStickyTryAcquireBesideOurOwnIdleNode(t *testing.T) {
	for _, tc := range []struct {
		name        string
		idle, other func(*recipes.InterProcessReadWriteLock) *recipes.Lock
	}{
		{"write beside an idle read", func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.ReadLock().Lock },
			func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.WriteLock().Lock }},
		{"read beside an idle write", func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.WriteLock().Lock },
			func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.ReadLock().Lock }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw := zktest.Connect(t, shared)
			p := lockPath(t)
			rw := mustRW(t, fw, p, recipes.WithSticky(time.Minute))
			t.Cleanup(func() { rw.Close(ctxFor(t, 10*time.Second)) })
			l := mustLease(t, tc.idle(rw), ctxFor(t, 10*time.Second))
			mustRelease(t, l)
			got, err := tc.other(rw).TryAcquire(ctxFor(t, 10*time.Second))
			if err != nil {
				t.Fatalf("TryAcquire beside our own idle node %s: %v, want the lock", l.Path(), err)
			}
			mustRelease(t, got)
		})
	}
}
