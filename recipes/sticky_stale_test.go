package recipes_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestStickyTakenNodeDeletedOnce: an idle node taken away by a contender from another process is
// deleted once, in the background; once that delete is done the lock forgets the node, and its
// next acquire sends no second delete (a NoNode answer, but a write transaction on the server,
// on the acquire's path: issue 28's s2 and s3 made one at every return of a lock).
func TestStickyTakenNodeDeletedOnce(t *testing.T) {
	var deletes atomic.Int32
	fa := testFramework(t, framework.WithTracer(func(tr framework.Trace) {
		if tr.Kind == framework.TraceOperation && tr.Name == "delete" {
			deletes.Add(1)
		}
	}))
	fb := testFramework(t)
	p := zktest.UniquePath(t, "/sticky-stale")
	owner, _ := stickyIdle(t, fa, p)
	defer owner.Close(testCtx(t, 10*time.Second))
	deletes.Store(0)
	visitor, err := recipes.NewMutex(fb, p)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := visitor.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "the taken node's delete to be done and the node forgotten", func() bool {
		return !recipes.StickyStale(owner.Lock)
	})
	if err := lv.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	lo, err := owner.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Release(testCtx(t, 10*time.Second))
	if n := deletes.Load(); n != 1 {
		t.Fatalf("the owner sent %d deletes from the take-over to its next grant, want 1", n)
	}
}
