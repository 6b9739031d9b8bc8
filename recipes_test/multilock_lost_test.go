package recipes_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 24.5: a sequential multi-lock holds /a and waits for /b when a connection blip makes its
// /a lease lost. Acquire must never return a set with a lost member: it releases what it holds
// and queues again under the same deadline. In "kept" the lost /a node is kept through the loss
// grace; in "taken" the grace is 0, so /a's node goes and client C, queued behind it, takes /a:
// the acquirer must then wait behind C. On the old code Acquire returned the set once /b was
// free, its Done already closed, in "taken" while C held /a.
func TestSequentialMultiLockNeverReturnsALostMember(t *testing.T) {
	for _, tt := range []struct {
		name  string
		grace time.Duration
		taker bool // client C queues on /a and takes it once A's node goes
	}{
		{"kept", 4 * time.Second, false},
		{"taken", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			zk := shared
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			root := lockPath(t)
			pa, pb := root+"/a", root+"/b"
			fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
			fb := zktest.Connect(t, zk)
			fc := zktest.Connect(t, zk)
			lb := mustAcquire(t, mustMutex(t, fb, pb), 10*time.Second)
			m, err := recipes.NewMultiLock(mustMutex(t, fa, pa, recipes.WithLossGrace(tt.grace)),
				mustMutex(t, fa, pb, recipes.WithLossGrace(tt.grace)))
			if err != nil {
				t.Fatal(err)
			}
			type result struct {
				ml  *recipes.MultiLease
				err error
			}
			got := make(chan result, 1)
			go func() {
				ml, err := m.Acquire(ctxFor(t, 60*time.Second))
				got <- result{ml, err}
			}()
			zktest.Eventually(t, 10*time.Second, "A to hold /a and queue on /b", func() bool {
				return len(zktest.Children(t, fb, pa)) == 1 && len(zktest.Children(t, fb, pb)) == 2
			})
			var gotC <-chan *recipes.Lease
			if tt.taker {
				gotC = leaseAsync(t, "C", 30*time.Second, mustMutex(t, fc, pa).Acquire)
				zktest.Eventually(t, 10*time.Second, "C to queue on /a", func() bool { return len(zktest.Children(t, fb, pa)) == 2 })
			}
			sentinel := mustAcquire(t, mustMutex(t, fa, root+"/sentinel"), 10*time.Second)
			blip(t, proxy, fa, sentinel) // every lease of fa is told, /a's included
			mustRelease(t, sentinel)
			var lc *recipes.Lease
			if tt.taker {
				lc = receive(t, gotC, "C's grant on /a")
				if lc == nil {
					t.FailNow()
				}
			}
			mustRelease(t, lb)
			if tt.taker {
				zktest.Eventually(t, 20*time.Second, "A to queue again on /a behind C", func() bool {
					select {
					case r := <-got:
						if r.err == nil {
							t.Fatalf("Acquire returned the set while C holds /a (set Err = %v)", r.ml.Err())
						}
						t.Fatalf("Acquire: %v", r.err)
					default:
					}
					return len(zktest.Children(t, fb, pa)) == 2
				})
				mustRelease(t, lc)
			}
			r := receive(t, got, "A's set")
			if r.err != nil {
				t.Fatalf("Acquire: %v", r.err)
			}
			if err := r.ml.Err(); err != nil {
				t.Fatalf("Acquire returned a set that is not held: %v", err)
			}
			if err := r.ml.Release(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			zktest.Eventually(t, 10*time.Second, "no nodes left", func() bool {
				return len(zktest.Children(t, fb, pa))+len(zktest.Children(t, fb, pb)) == 0
			})
		})
	}
}
