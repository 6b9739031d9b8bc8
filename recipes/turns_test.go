package recipes_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A waiter under a context that can end is readied once per acquisition: on its grant. The
// wake-up of its watch and the burst after it (the own-node check or the listing and the next
// watch) run on the framework's warm goroutines, not on the caller's (issue 27: each readying of
// the caller is a hand-off that zk.Lock, which wakes its waiter once, does not pay). Before, a
// waiter was readied once per burst and once per wake: three times for one wait.
func TestContendedWaiterReadiedOncePerAcquisition(t *testing.T) {
	for _, tc := range []struct {
		name    string
		waiters int
	}{{"one waiter", 1}, {"four waiters", 4}} {
		t.Run(tc.name, func(t *testing.T) {
			p := "/turns/" + t.Name()
			holderFw := testFramework(t)
			holder := newMutex(t, holderFw, p)
			held, err := holder.Acquire(testCtx(t, 10*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			before := recipes.CallerTurns()
			leases := make(chan *recipes.Lease, tc.waiters)
			for range tc.waiters {
				m := newMutex(t, testFramework(t), p)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				t.Cleanup(cancel)
				go func() {
					l, err := m.Acquire(ctx)
					if err != nil {
						t.Error(err)
					}
					leases <- l
				}()
			}
			zktest.Eventually(t, 10*time.Second, "the waiters to queue", func() bool {
				kids, _, err := holderFw.Children(testCtx(t, 5*time.Second), p)
				return err == nil && len(kids) == tc.waiters+1
			})
			if err := held.Release(testCtx(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			for range tc.waiters {
				select {
				case l := <-leases:
					if l == nil {
						t.FailNow()
					}
					if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
						t.Fatal(err)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("a waiter was never granted")
				}
			}
			if got := recipes.CallerTurns() - before; got > int64(tc.waiters) {
				t.Errorf("%d waiters were readied %d times in all; want once each (%d)", tc.waiters, got, tc.waiters)
			}
		})
	}
}

// newMutex makes a plain mutex on p.
func newMutex(t *testing.T, fw *framework.Framework, p string) *recipes.InterProcessMutex {
	t.Helper()
	m, err := recipes.NewMutex(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
