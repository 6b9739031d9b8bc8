package recipes_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestStickyReleaseDoesNotWaitForArming: the Release of a slot's first lease (a grant that did
// not queue: the slot's directory watch is set by a listing off the caller's path, armDir)
// returns at once while that listing is still in flight (held here by the test), instead of
// waiting for it: the slot is being checked, and the listing's verdict decides whether it is
// kept (no conflicting contender: idle) or deleted. A local Acquire meanwhile waits for that
// verdict, and is granted locally once it comes (issue 28, s2: the owner's acquisition after a
// visit). The refusals stay: TestStickyVisitReleasesPlain and the refusal tests.
func TestStickyReleaseDoesNotWaitForArming(t *testing.T) {
	fw := testFramework(t)
	p := zktest.UniquePath(t, "/sticky-arm")
	m, err := recipes.NewMutex(fw, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(testCtx(t, 10*time.Second))
	release := recipes.HoldStickyArming()
	defer release()
	l, err := m.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := l.Release(rctx); err != nil {
		t.Fatalf("Release waited for the slot's directory listing: %v", err)
	}
	cycleAfter(t, m.Lock, release, "the acquire after the release")
	if slot, reuses, _ := recipes.StickySnapshot(m.Lock); slot == nil || reuses != 1 {
		t.Fatalf("after the second acquisition: slot %v, local grants %d, want the node kept and re-granted once", slot, reuses)
	}
}
