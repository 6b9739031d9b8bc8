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

// heldLock is one recipe as the loss-path tests drive it: take it (blocking), or start taking
// it in the background.
type heldLock struct {
	name    string
	acquire func(ctx context.Context, fw *framework.Framework, p string) (recipes.Held, error)
}

var lossPathRecipes = []heldLock{
	{"mutex", func(ctx context.Context, fw *framework.Framework, p string) (recipes.Held, error) {
		m, err := recipes.NewMutex(fw, p)
		if err != nil {
			return nil, err
		}
		return m.Hold(ctx)
	}},
	{"write", func(ctx context.Context, fw *framework.Framework, p string) (recipes.Held, error) {
		rw, err := recipes.NewReadWriteLock(fw, p)
		if err != nil {
			return nil, err
		}
		return rw.WriteLock().Hold(ctx)
	}},
	{"semaphore-of-1", func(ctx context.Context, fw *framework.Framework, p string) (recipes.Held, error) {
		s, err := recipes.NewSemaphore(fw, p, 1)
		if err != nil {
			return nil, err
		}
		ls, err := s.Acquire(ctx, 1)
		if err != nil {
			return nil, err
		}
		return ls[0], nil
	}},
	{"semaphore-mutex", func(ctx context.Context, fw *framework.Framework, p string) (recipes.Held, error) {
		m, err := recipes.NewSemaphoreMutex(fw, p)
		if err != nil {
			return nil, err
		}
		return m.Hold(ctx)
	}},
}

// holdAsync takes r on fw in the background under a ctx bounded by d.
func holdAsync(t *testing.T, r heldLock, fw *framework.Framework, p string, d time.Duration) <-chan recipes.Held {
	ctx := ctxFor(t, d)
	got := make(chan recipes.Held, 1)
	go func() {
		h, err := r.acquire(ctx, fw, p)
		if err != nil {
			t.Errorf("%s: waiter: %v", r.name, err)
		}
		got <- h
	}()
	return got
}

// blip resets the holder's connection and waits until it is told (Done) and back on the same
// session: the session survives, only the connection was disturbed.
func blip(t *testing.T, proxy *zktest.Proxy, fw *framework.Framework, held recipes.Held) {
	t.Helper()
	sid := fw.SessionID()
	proxy.DropConnections()
	zktest.Receive(t, held.Done(), 20*time.Second, "the holder to be told that its lock may be lost")
	if !errors.Is(held.Err(), recipes.ErrLockLost) {
		t.Fatalf("Err after the blip = %v, want ErrLockLost", held.Err())
	}
	zktest.Eventually(t, 20*time.Second, "the holder to reconnect", func() bool {
		return fw.State().IsConnected() && fw.SessionID() == sid
	})
}

// Issue 16.1: a connection blip tells the holder (Done) but must not hand the lock over while
// the told holder is still stopping. Curator keeps the node through a reconnect; so do we,
// until the holder releases (or the grace, the session timeout, passes). On the old code the
// node went one round trip after the reconnect and the waiter took the lock at once.
func TestBlipHandsNothingOverBeforeRelease(t *testing.T) {
	for _, r := range lossPathRecipes {
		t.Run(r.name, func(t *testing.T) {
			zk := shared
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			p := lockPath(t)
			fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
			fb := zktest.Connect(t, zk)
			a, err := r.acquire(ctxFor(t, 10*time.Second), fa, p)
			if err != nil {
				t.Fatal(err)
			}
			got := holdAsync(t, r, fb, p, 60*time.Second)
			zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool {
				return fb.Watches() > 0
			})
			blip(t, proxy, fa, a)
			// The holder is "still stopping": for a while nothing may be handed over.
			select {
			case h := <-got:
				if h != nil {
					mustRelease(t, h)
				}
				t.Fatal("the lock was handed over while the told holder had not released it")
			case <-time.After(3 * time.Second):
			}
			released := time.Now()
			if err := a.Release(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatalf("Release of a lost lease: %v, want nil", err)
			}
			if d := time.Since(released); d > time.Second {
				t.Errorf("Release of a lost lease took %v, want at once", d)
			}
			h := receive(t, got, "the waiter, after the holder released")
			if h == nil {
				t.Fatal("waiter failed")
			}
			mustRelease(t, h)
		})
	}
}

// Issue 16.1, the other side: a holder that never releases its lost lease must not block the
// lock for ever. Its node goes when the grace has passed, and not before.
func TestLostLeaseFreesLockAfterGrace(t *testing.T) {
	const grace = 1500 * time.Millisecond
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	p := lockPath(t)
	fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	fb := zktest.Connect(t, zk)
	la := mustAcquire(t, mustMutex(t, fa, p, recipes.WithLossGrace(grace)), 10*time.Second)
	got := leaseAsync(t, "waiter", 60*time.Second, mustMutex(t, fb, p).Acquire)
	zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })
	proxy.DropConnections()
	<-la.Done()
	told := time.Now()
	lb := zktest.Receive(t, got, grace+lossDeleteBound, "the next contender, blocked behind a lost, never released lease past its grace")
	if since := time.Since(told); since < grace {
		t.Errorf("handed over %v after the holder was told, before the %v grace", since, grace)
	}
	if lb == nil {
		t.Fatal("waiter failed")
	}
	mustRelease(t, lb)
	if err := la.Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatalf("Release after the grace: %v, want nil", err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fb, p)) == 0 })
}

func TestLossGraceOption(t *testing.T) {
	if _, err := recipes.NewMutex(zktest.Connect(t, shared), "/x", recipes.WithLossGrace(-time.Second)); !errors.Is(err, recipes.ErrInvalidArgument) {
		t.Fatalf("WithLossGrace(-1s): %v, want ErrInvalidArgument", err)
	}
}

// Issue 16.4: Release of a lost lease returns nil at once, during an outage and after Close
// (on the old code it blocked until the server came back, then failed, and after Close it
// returned "framework: closed").
func TestReleaseOfLostLeaseReturnsAtOnce(t *testing.T) {
	for _, fault := range []string{"blackhole", "close"} {
		t.Run(fault, func(t *testing.T) {
			zk := shared
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			p := lockPath(t)
			fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(4*time.Second))
			la := mustAcquire(t, mustMutex(t, fa, p), 10*time.Second)
			switch fault {
			case "blackhole":
				proxy.Blackhole(true)
				t.Cleanup(func() { proxy.Blackhole(false) })
			case "close":
				fa.Close()
			}
			zktest.Receive(t, la.Done(), 20*time.Second, "the holder to be told")
			start := time.Now()
			if err := la.Release(context.Background()); err != nil {
				t.Fatalf("Release: %v, want nil", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("Release of a lost lease took %v, want at once", d)
			}
		})
	}
}

// Issue 16.2: a semaphore of one must not wedge. H holds the lease; A holds the internal mutex
// and waits in leases/; B waits for the internal mutex. A's connection resets: A's mutex lease
// ends, and A must leave leases/ and queue again from the mutex. On the old code A went on
// waiting in leases/, B took the mutex and joined it there, and after H released neither
// ever acquired (two waiters > a maximum of one).
func TestSemaphoreOfOneDoesNotWedge(t *testing.T) {
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	p := lockPath(t)
	fh := zktest.Connect(t, zk)
	fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	fb := zktest.Connect(t, zk)
	h := mustLeases(t, mustSem(t, fh, p, 1), 1)
	ctx := ctxFor(t, 60*time.Second)
	gotA := acquireAsync(t, mustSem(t, fa, p, 1), ctx, 1)
	zktest.Eventually(t, 10*time.Second, "A to wait in leases/", func() bool {
		return len(zktest.Children(t, fh, p+"/leases")) == 2
	})
	gotB := acquireAsync(t, mustSem(t, fb, p, 1), ctx, 1)
	zktest.Eventually(t, 10*time.Second, "B to queue on the internal mutex", func() bool {
		return len(zktest.Children(t, fh, p+"/locks")) == 2
	})
	sid := fa.SessionID()
	proxy.DropConnections()
	zktest.Eventually(t, 20*time.Second, "A to reconnect", func() bool {
		return fa.State().IsConnected() && fa.SessionID() == sid
	})
	// B takes the internal mutex once A lets go of it, and queues in leases/.
	zktest.Eventually(t, 20*time.Second, "B to wait in leases/", func() bool {
		return ownedBy(t, fh, p+"/leases", fb.SessionID()) == 1
	})
	if err := h[0].Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	var first []*recipes.SemaphoreLease
	var other <-chan []*recipes.SemaphoreLease
	select {
	case first = <-gotA:
		other = gotB
	case first = <-gotB:
		other = gotA
	case <-time.After(20 * time.Second):
		t.Fatalf("wedged: leases/ %v, locks/ %v", zktest.Children(t, fh, p+"/leases"), zktest.Children(t, fh, p+"/locks"))
	}
	if len(first) != 1 {
		t.Fatalf("first acquirer got %d leases", len(first))
	}
	stillWaiting(t, other, "the second acquirer, while the first holds")
	mustRelease(t, first[0])
	second := receive(t, other, "the second acquirer")
	if len(second) != 1 {
		t.Fatalf("second acquirer got %d leases", len(second))
	}
	mustRelease(t, second[0])
	assertEmpty(t, fh, p)
}

// ownedBy counts the children of dir whose ephemeral owner is session sid. A child deleted
// between the listing and its Exists (nil Stat) is nobody's.
func ownedBy(t *testing.T, fw *framework.Framework, dir string, sid int64) int {
	n := 0
	for _, c := range zktest.Children(t, fw, dir) {
		st, err := fw.Exists(ctxFor(t, 10*time.Second), dir+"/"+c)
		if err == nil && st != nil && st.EphemeralOwner == sid {
			n++
		}
	}
	return n
}
