package recipes_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// Issue 28, s5: a local re-grant makes no request and so never blocks; a goroutine that loops
// on Acquire and Release of an idle sticky node must still let the process's other goroutines
// run (those that deliver a conflicting contender's event among them), or each of them waits a
// whole preemption slice (10 ms) behind every such loop. On one P, a goroutine made runnable
// by the loop's own grant number `at` must run within a few grants, not a slice's thousands.
func TestStickyLocalGrantYields(t *testing.T) {
	const at, slack, most = 100, 3, 200_000
	for _, tc := range []struct {
		name string
		lock func(t *testing.T, p string) func(context.Context) (*recipes.Lease, error)
	}{
		{"mutex", func(t *testing.T, p string) func(context.Context) (*recipes.Lease, error) {
			m, err := recipes.NewMutex(testFramework(t), p, recipes.WithSticky(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close(context.Background()) })
			return m.Acquire
		}},
		{"read lock", func(t *testing.T, p string) func(context.Context) (*recipes.Lease, error) {
			rw, err := recipes.NewReadWriteLock(testFramework(t), p, recipes.WithSticky(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rw.Close(context.Background()) })
			return rw.ReadLock().Acquire
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acquire := tc.lock(t, fmt.Sprintf("/sticky-yield/%s-%d", tc.name, time.Now().UnixNano()))
			ctx := testCtx(t, 60*time.Second)
			cycle := func() {
				l, err := acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Release(ctx); err != nil {
					t.Fatal(err)
				}
			}
			cycle() // the node is idle now: every later cycle is a local grant
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			var grants atomic.Int64
			woken, seen := make(chan struct{}), make(chan int64, 1)
			go func() {
				<-woken
				seen <- grants.Load()
			}()
			for i := int64(1); i <= most && len(seen) == 0; i++ {
				cycle()
				grants.Store(i)
				if i == at {
					close(woken)
				}
			}
			got := <-seen
			t.Logf("the goroutine woken at local grant %d ran at grant %d", at, got)
			if got > at+slack {
				t.Fatalf("a goroutine woken at local grant %d ran only at grant %d: local grants do not yield", at, got)
			}
		})
	}
}
