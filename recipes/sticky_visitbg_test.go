package recipes_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestStickyVisitReleaseDeletesInBackground: the Release of a visit (a grant that queued behind
// another process's idle node, not cached: sticky_visit.go) returns without waiting for its
// delete, which goes on in the background (held here by the test): the node still stands when
// Release returns, so the lock only stays taken longer. The next Acquire of the lock in this
// process waits for that delete before it creates its node: it is granted without queueing
// behind its own old node. Once the delete ends, nothing is left.
func TestStickyVisitReleaseDeletesInBackground(t *testing.T) {
	var queued atomic.Int32
	fa := testFramework(t)
	fb := testFramework(t, framework.WithTracer(func(tr framework.Trace) {
		if tr.Kind == framework.TraceLock && tr.Name == "queued" {
			queued.Add(1)
		}
	}))
	p := zktest.UniquePath(t, "/sticky-visitbg")
	owner, _ := stickyIdle(t, fa, p)
	defer owner.Close(testCtx(t, 10*time.Second))
	visitor, err := recipes.NewMutex(fb, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer visitor.Close(testCtx(t, 10*time.Second))
	l, err := visitor.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if n := queued.Load(); n != 1 {
		t.Fatalf("the visit queued %d times, want 1 (behind the owner's idle node)", n)
	}
	release := recipes.HoldStickyVisitDeletes()
	defer release()
	if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if kids := childrenOrNone(t, fb, p); len(kids) != 1 || kids[0] != l.NodeName() {
		t.Fatalf("right after the visit's Release: children %v, want the visit's node %s still standing (its delete held in the background)",
			kids, l.NodeName())
	}
	if !recipes.StickyStale(visitor.Lock) {
		t.Fatal("the visit's node in flight is not remembered: a later acquire would queue behind it")
	}
	cycleAfter(t, visitor.Lock, release, "the acquire after the visit")
	if n := queued.Load(); n != 1 {
		t.Fatalf("the acquire after the visit queued (%d queued in all, want 1): it did not wait for the visit's delete", n)
	}
	recipes.FlushStickyStale(testCtx(t, 10*time.Second), visitor.Lock)
	if err := visitor.Close(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if kids := childrenOrNone(t, fb, p); len(kids) != 0 {
		t.Fatalf("after the visitor's Close: children %v, want none", kids)
	}
}

// cycleAfter starts an acquire and release of l, lets go of a test gate (release), and fails
// unless that cycle ends without error within 10 s.
func cycleAfter(t *testing.T, l *recipes.Lock, release func(), what string) {
	t.Helper()
	got := make(chan error, 1)
	go func() {
		l2, err := l.Acquire(testCtx(t, 10*time.Second))
		if err == nil {
			err = l2.Release(testCtx(t, 10*time.Second))
		}
		got <- err
	}()
	release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal(what + " did not return")
	}
}
