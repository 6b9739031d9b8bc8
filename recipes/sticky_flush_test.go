package recipes_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// An idle sticky node that a contender from elsewhere takes away is deleted once, by the
// framework's guaranteed delete queued when the slot ends. The next Acquire, which takes the
// normal way, makes sure that delete is done before it queues a node of its own: it waits for
// it instead of sending a delete of its own (a repeated round trip, NoNode).
func TestStickyAcquireAfterDropSendsNoSecondDelete(t *testing.T) {
	proxy, fa := proxiedFramework(t)
	fb := testFramework(t)
	p := "/sticky-flush/" + t.Name()
	m, node := stickyIdle(t, fa, p)
	defer m.Close(testCtx(t, 10*time.Second))
	proxy.ResetCounts()
	mb, err := recipes.NewMutex(fb, p)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := mb.Acquire(testCtx(t, 10*time.Second)) // the idle node's watch fires: the slot ends, its node goes
	if err != nil {
		t.Fatal(err)
	}
	if err := lb.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	l, err := m.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() == node {
		t.Fatalf("re-granted the node %s the contender took away", node)
	}
	if n := proxy.Requests()[zktest.OpDelete]; n != 1 {
		t.Fatalf("%d deletes of the dropped idle node %s, want 1 (the guaranteed delete)", n, node)
	}
	if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}
