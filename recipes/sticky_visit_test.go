package recipes_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestStickyVisitorReleasesPlain: a sticky lock granted after queueing behind another process's
// node (here its owner's idle one: a visit, issue 28's s2) does not cache that node: the
// visitor's Release deletes it at once, and the owner's next Acquire is a plain one (it queues
// behind nothing), not a handover that waits for the visitor's delete.
func TestStickyVisitorReleasesPlain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ownerFirst bool // the owner took the lock first (its node idle when the visitor comes)
		wantKids   int  // children right after the visitor's Release
	}{
		{"visit of an idle node", true, 0},
		{"first use of a free lock caches", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ownerQueued atomic.Int32
			fa := testFramework(t, framework.WithTracer(func(tr framework.Trace) {
				if tr.Kind == framework.TraceLock && tr.Name == "queued" {
					ownerQueued.Add(1)
				}
			}))
			fb := testFramework(t)
			p := zktest.UniquePath(t, "/sticky-visit")
			var owner *recipes.InterProcessMutex
			if tc.ownerFirst {
				owner, _ = stickyIdle(t, fa, p)
				defer owner.Close(testCtx(t, 10*time.Second))
			}
			visitor, err := recipes.NewMutex(fb, p, recipes.WithSticky(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			defer visitor.Close(testCtx(t, 10*time.Second))
			l, err := visitor.Acquire(testCtx(t, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			kids, _, err := fb.Children(testCtx(t, 10*time.Second), p)
			if err != nil {
				t.Fatal(err)
			}
			if len(kids) != tc.wantKids {
				t.Fatalf("after the visitor's release: children %v, want %d", kids, tc.wantKids)
			}
			if !tc.ownerFirst {
				return
			}
			lo, err := owner.Acquire(testCtx(t, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer lo.Release(testCtx(t, 10*time.Second))
			if n := ownerQueued.Load(); n != 0 {
				t.Fatalf("the owner's acquire after the visit queued %d times, want a plain grant", n)
			}
		})
	}
}
