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
	sc := newVisitScene(t, framework.TraceOperation, "delete", "/sticky-stale")
	owner, _ := stickyIdle(t, sc.fa, sc.p)
	defer owner.Close(testCtx(t, 10*time.Second))
	sc.traces.Store(0)
	visitor, err := recipes.NewMutex(sc.fb, sc.p)
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
	if n := sc.ownerReturns(t, owner); n != 1 {
		t.Fatalf("the owner sent %d deletes from the take-over to its next grant, want 1", n)
	}
}

// visitScene is the setting of a visit (another process taking an owner's sticky lock): the
// owner's framework fa, whose traces of one kind and name it counts, the visitor's framework fb
// and the lock's unique path p.
type visitScene struct {
	fa, fb *framework.Framework
	traces *atomic.Int32 // fa's traces of the counted kind and name
	p      string
}

// newVisitScene opens the two frameworks of a visit on a unique path under prefix; fa counts its
// traces of kind and name.
func newVisitScene(t *testing.T, kind framework.TraceKind, name, prefix string) *visitScene {
	t.Helper()
	sc := &visitScene{traces: &atomic.Int32{}}
	sc.fa = testFramework(t, framework.WithTracer(func(tr framework.Trace) {
		if tr.Kind == kind && tr.Name == name {
			sc.traces.Add(1)
		}
	}))
	sc.fb = testFramework(t)
	sc.p = zktest.UniquePath(t, prefix)
	return sc
}

// ownerReturns takes the owner's lock once more after the visit and returns how many counted
// traces fa had made once it was granted; it releases the lease before returning.
func (sc *visitScene) ownerReturns(t *testing.T, owner *recipes.InterProcessMutex) int32 {
	t.Helper()
	lo, err := owner.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Release(testCtx(t, 10*time.Second)) // not what the callers check
	return sc.traces.Load()
}
