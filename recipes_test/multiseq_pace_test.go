package recipes_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// lossyMutex is a real mutex whose every grant is taken away at once by another client (a
// hostile directory): Hold deletes the node it was granted and waits until the lease is lost.
type lossyMutex struct {
	*recipes.InterProcessMutex
	t     *testing.T
	other *framework.Framework
	holds *atomic.Int32
}

func (m lossyMutex) Hold(ctx context.Context) (recipes.Held, error) {
	m.holds.Add(1)
	l, err := m.InterProcessMutex.Hold(ctx)
	if err != nil {
		return l, err
	}
	if err := m.other.Delete(ctxFor(m.t, 10*time.Second), l.Path()); err != nil {
		m.t.Error(err)
	}
	select {
	case <-l.Done():
	case <-time.After(20 * time.Second):
		m.t.Error("the lease was never told its node was deleted")
	}
	return l, nil
}

// A sequential multi-lock that loses a lock it took queues again from the first lock: after
// the pause of the framework's retry policy (at least retry.MinPace), so that a directory that
// takes every grant away cannot make it spin. The policy here pauses an hour: within the
// caller's two seconds there is one attempt. On the old code the set was queued again at once,
// attempt after attempt, until ctx ended.
func TestSequentialMultiLockPausesBeforeQueueingAgain(t *testing.T) {
	fa := zktest.Connect(t, shared, framework.WithRetryPolicy(retry.Forever(time.Hour)))
	fb := zktest.Connect(t, shared)
	root := lockPath(t)
	var holds atomic.Int32
	a := lossyMutex{InterProcessMutex: mustMutex(t, fa, root+"/a"), t: t, other: fb, holds: &holds}
	m, err := recipes.NewMultiLock(a, mustMutex(t, fa, root+"/b"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ml, err := m.Acquire(ctx)
	if err == nil {
		t.Fatalf("Acquire returned a set whose first lock is taken away (its Err: %v)", ml.Err())
	}
	if !errors.Is(err, recipes.ErrLockLost) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire: %v, want an error wrapping ErrLockLost and ctx's", err)
	}
	if n := holds.Load(); n != 1 {
		t.Fatalf("%d attempts in 2 s with a retry pause of an hour, want 1", n)
	}
	zktest.Eventually(t, 20*time.Second, "no nodes left", func() bool {
		return len(zktest.Children(t, fb, root+"/a"))+len(zktest.Children(t, fb, root+"/b")) == 0
	})
}
