package recipes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A local sticky waiter whose ctx ends just as the slot is handed to it gives the lease back
// on its own goroutine. Here a contender from elsewhere has queued meanwhile (the handed lease
// must delete the node) and the connection has gone silent, not yet noticed: the give-back must
// not hold the cancelled Acquire past its ctx (it used to wait for the delete, up to the
// cleanup allowance of a live ctx); the delete goes on in the background, and once the
// connection heals the node is gone: the contender gets the lock and nothing is left.
func TestStickyCancelledWaiterDoesNotBlockOnSilentConnection(t *testing.T) {
	proxy, fa := proxiedFramework(t, framework.WithErrorPolicy(framework.SessionPolicy))
	fb := testFramework(t)
	p := "/sticky-cancel/" + t.Name()
	m, node := stickyIdle(t, fa, p)
	held, err := m.Acquire(testCtx(t, 10*time.Second)) // a local re-grant of the idle node
	if err != nil || held.Path() != node {
		t.Fatalf("Acquire = %v, %v; want the idle node %s", held, err, node)
	}
	var contender <-chan *recipes.Lease
	var hookDone time.Time
	defer recipes.SetStickyAwaitHook(func() {
		if err := held.Release(testCtx(t, 10*time.Second)); err != nil { // hands the slot to the waiter
			t.Error(err)
		}
		contender = queueBehind(t, fb, p)
		zktest.Eventually(t, 10*time.Second, "the slot to see the contender", func() bool { return recipes.StickyConflicted(m.Lock) })
		proxy.Blackhole(true)
		hookDone = time.Now()
	})()
	t.Cleanup(func() { proxy.Blackhole(false) })
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		l   *recipes.Lease
		err error
		at  time.Time
	}
	got := make(chan result, 1)
	go func() {
		l, err := m.Acquire(ctx)
		got <- result{l, err, time.Now()}
	}()
	zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return recipes.StickyWaiters(m.Lock) == 1 })
	cancel()
	var r result
	select {
	case r = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled Acquire hangs")
	}
	if contender == nil {
		t.Fatal("the hook did not run: the waiter's ctx did not end in the queue")
	}
	// The hook ran after the ctx's end; what the Acquire does after it must wait for no reply
	// (the old code waited up to the cleanup allowance, a second, for the delete).
	if blocked := r.at.Sub(hookDone); blocked > 500*time.Millisecond {
		t.Fatalf("the cancelled Acquire returned %v after its ctx ended and the connection went silent; want at once", blocked)
	}
	if r.err == nil || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled Acquire = %v, %v; want context.Canceled", r.l, r.err)
	}
	proxy.Blackhole(false)
	lb := <-contender
	if lb == nil {
		t.Fatal("the contender got no lease")
	}
	if err := lb.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 20*time.Second, "the directory to empty (node "+node+" gone)", func() bool {
		kids, _, err := fb.Children(testCtx(t, 10*time.Second), p)
		return errors.Is(err, framework.ErrNoNode) || (err == nil && len(kids) == 0)
	})
	if err := m.Close(testCtx(t, 10*time.Second)); err != nil && !errors.Is(err, framework.ErrClosed) {
		t.Logf("close: %v", err)
	}
}
