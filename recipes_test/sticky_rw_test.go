package recipes_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// idleLease takes and releases one lease of l, so that a sticky l keeps its node idle, and
// returns the node's path.
func idleLease(t *testing.T, l acquirer) string {
	t.Helper()
	lease := mustLease(t, l, ctxFor(t, 10*time.Second))
	node := lease.Path()
	mustRelease(t, lease)
	return node
}

// Issue 28, read-write lock: a cached read node goes when a writer queues (the writer gets the
// lock), and stays when a reader comes and goes (the next local read is the same node); a
// cached write node goes when a reader queues.
func TestStickyReadWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cached func(rw *recipes.InterProcessReadWriteLock) acquirer // the sticky side of fa
		other  func(rw *recipes.InterProcessReadWriteLock) acquirer // the plain side of fb
		stays  bool                                                 // the cached node survives the other's lease
	}{
		{"read cached, writer arrives", rdr, wrt, false},
		{"read cached, reader arrives", rdr, rdr, true},
		{"write cached, reader arrives", wrt, rdr, false},
		{"write cached, writer arrives", wrt, wrt, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
			p := lockPath(t)
			a := mustRW(t, fa, p, recipes.WithSticky(time.Minute))
			node := idleLease(t, tc.cached(a))
			lb := mustLease(t, tc.other(mustRW(t, fb, p)), ctxFor(t, 20*time.Second))
			mustRelease(t, lb)
			syncRead(t, fa, p)
			again := mustLease(t, tc.cached(a), ctxFor(t, 20*time.Second))
			if stayed := again.Path() == node; stayed != tc.stays {
				t.Fatalf("after the other's lease the cached side got %s (cached node %s): stayed %v, want %v",
					again.Path(), node, stayed, tc.stays)
			}
			mustRelease(t, again)
			if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			if kids := zktest.Children(t, fa, p); len(kids) != 0 {
				t.Fatalf("after Close: %v, want nothing", kids)
			}
			zktest.CheckNoWatches(t, shared, fa, fb)
		})
	}
}

func rdr(rw *recipes.InterProcessReadWriteLock) acquirer { return rw.ReadLock() }
func wrt(rw *recipes.InterProcessReadWriteLock) acquirer { return rw.WriteLock() }

// Issue 28: a writer of this very process queues behind our own cached read node and gets the
// lock (the read node goes), and a downgrade of a sticky write lease works and is not cached.
func TestStickyReadWriteSameProcess(t *testing.T) {
	fw := zktest.Connect(t, shared)
	p := lockPath(t)
	rw := mustRW(t, fw, p, recipes.WithSticky(time.Minute))
	read := idleLease(t, rw.ReadLock())
	w := mustLease(t, rw.WriteLock(), ctxFor(t, 20*time.Second))
	if kids := zktest.Children(t, fw, p); len(kids) != 1 || strings.HasSuffix(read, kids[0]) {
		t.Fatalf("writer holds with %v in the directory, want its node only (the read %s gone)", kids, read)
	}
	r, err := rw.ReadLock().Downgrade(ctxFor(t, 10*time.Second), w)
	if err != nil {
		t.Fatal(err)
	}
	mustRelease(t, w) // a downgraded read queued behind the write node: it goes at release
	mustRelease(t, r) // a downgrade is never cached
	closeEmpty(t, rw, fw, p)
}

// Issue 28: WithSticky on a lock whose driver does not allow caching (a semaphore's), a negative
// idle time, and a sticky lock in a transactional multi-lock are ErrInvalidArgument, naming
// what is wrong.
func TestStickyRefusedOptions(t *testing.T) {
	fw := zktest.Connect(t, shared)
	p := lockPath(t)
	sticky, err := recipes.NewMutex(fw, p+"/m", recipes.WithSticky(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		make func() error
		want string
	}{
		{"negative idle", func() error { _, err := recipes.NewMutex(fw, p, recipes.WithSticky(-time.Second)); return err }, "idle"},
		{"semaphore", func() error { _, err := recipes.NewSemaphore(fw, p+"/s", 2, recipes.WithSticky(0)); return err }, "driver"},
		{"tx multi-lock", func() error { _, err := recipes.NewTxMultiLock(sticky); return err }, "transactional"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.make()
			if !errors.Is(err, recipes.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidArgument naming %q", err, tc.want)
			}
		})
	}
	// A sequential multi-lock of sticky mutexes caches each member.
	ml, err := recipes.NewMultiLock(sticky)
	if err != nil {
		t.Fatal(err)
	}
	set, err := ml.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if kids := zktest.Children(t, fw, p+"/m"); len(kids) != 1 {
		t.Fatalf("a sequential multi-lock's sticky member left %v, want its idle node", kids)
	}
	if err := sticky.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := sticky.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	zktest.CheckNoWatches(t, shared, fw)
}

// Issue 28: sticky locks leave no goroutine behind once their nodes are gone and the framework
// is closed, through re-grants, a handover to another session, the idle time, Close, and an
// idle node ended by the framework's close (its session takes the node).
func TestStickyLeavesNoGoroutines(t *testing.T) {
	zktest.CheckGoroutines(t)
	fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t)
	a := stickyMutex(t, fa, p, 200*time.Millisecond)
	for range 5 {
		idleOnce(t, a)
	}
	lb := mustAcquire(t, mustMutex(t, fb, p), 20*time.Second) // takes it from the idle node
	mustRelease(t, lb)
	idleOnce(t, a)
	zktest.Eventually(t, 10*time.Second, "the idle time to end the node", func() bool {
		return len(zktest.Children(t, fa, p)) == 0
	})
	idleOnce(t, a)
	closeClean(t, a, fa, fb)
	idleOnce(t, stickyMutex(t, fa, p, time.Minute)) // left idle: the framework's close ends it
	fa.Close()
	if kids := zktest.Children(t, fb, p); len(kids) != 0 {
		t.Fatalf("after the framework closed: %v, want nothing", kids)
	}
	zktest.CheckNoWatches(t, shared, fb)
	fb.Close()
}

// Issue 28: the kazoo-layout locks cache too: a kazoo mutex re-grants its idle node, and a plain
// kazoo-layout contender takes it; a kazoo read cache survives another reader.
func TestStickyKazooLayout(t *testing.T) {
	fa, fb := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t)
	a, err := recipes.NewKazooMutex(fa, p+"/m", recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	b, err := recipes.NewKazooMutex(fb, p+"/m")
	if err != nil {
		t.Fatal(err)
	}
	node := idleLease(t, a)
	if again := idleLease(t, a); again != node {
		t.Fatalf("kazoo mutex re-grant got %s, want %s", again, node)
	}
	lb := mustLease(t, b, ctxFor(t, 20*time.Second))
	mustRelease(t, lb)
	rwa, err := recipes.NewKazooReadWriteLock(fa, p+"/rw", recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	rwb, err := recipes.NewKazooReadWriteLock(fb, p+"/rw")
	if err != nil {
		t.Fatal(err)
	}
	read := idleLease(t, rwa.ReadLock())
	mustRelease(t, mustLease(t, rwb.ReadLock(), ctxFor(t, 20*time.Second)))
	syncRead(t, fa, p+"/rw")
	if again := idleLease(t, rwa.ReadLock()); again != read {
		t.Fatalf("kazoo read re-grant after another reader got %s, want %s", again, read)
	}
	mustRelease(t, mustLease(t, rwb.WriteLock(), ctxFor(t, 20*time.Second)))
	if err := errors.Join(a.Close(ctxFor(t, 10*time.Second)), rwa.Close(ctxFor(t, 10*time.Second))); err != nil {
		t.Fatal(err)
	}
	zktest.CheckNoWatches(t, shared, fa, fb)
}
