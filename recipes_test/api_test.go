package recipes_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Bad arguments get a typed error, never a panic, and no request.
func TestLockBadInput(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	tests := []struct {
		name string
		make func() error
		want error
	}{
		{"nil framework", func() error { _, err := recipes.NewLock(nil, p, driver.Exclusive()); return err }, recipes.ErrInvalidArgument},
		{"nil driver", func() error { _, err := recipes.NewLock(fw, p, nil); return err }, recipes.ErrInvalidArgument},
		{"nil option", func() error { _, err := recipes.NewMutex(fw, p, nil); return err }, recipes.ErrInvalidArgument},
		{"nil revocation", func() error { _, err := recipes.NewMutex(fw, p, recipes.WithRevocation(nil)); return err }, recipes.ErrInvalidArgument},
		{"zero listing limit", func() error { _, err := recipes.NewMutex(fw, p, recipes.WithListingLimit(0)); return err }, recipes.ErrInvalidArgument},
		{"nil node data", func() error { _, err := recipes.NewMutex(fw, p, recipes.WithNodeData(nil)); return err }, recipes.ErrInvalidArgument},
		{"root path", func() error { _, err := recipes.NewLock(fw, "/", driver.Exclusive()); return err }, framework.ErrInvalidPath},
		{"bad input path", func() error {
			_, err := recipes.NewLock(fw, p, driver.SharedSemaphore("no-slash", 1))
			return err
		}, framework.ErrInvalidPath},
		{"nil sync locker", func() error { _, err := recipes.NewSyncLocker(nil); return err }, recipes.ErrInvalidArgument},
		{"nil shared count framework", func() error { _, err := recipes.NewSharedCount(nil, p); return err }, recipes.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.make(); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// A Lock with a driver of one's own (here Curator's Standard driver for two holders) gets
// the loop: at most two hold at once, each acquire leaves nothing behind.
func TestLockStandardDriverTwoHolders(t *testing.T) {
	zk := shared
	p := lockPath(t)
	var g zktest.Gauge
	var wg sync.WaitGroup
	for range 4 {
		lk, err := recipes.NewLock(zktest.Connect(t, zk), p, driver.Standard("job-", 2))
		if err != nil {
			t.Fatal(err)
		}
		contend(t, &wg, 5, &g, 5*time.Millisecond, func() (func() error, error) {
			l, err := lk.Acquire(ctxFor(t, 60*time.Second))
			if err != nil {
				return nil, err
			}
			return func() error { return l.Release(context.Background()) }, nil
		})
	}
	wg.Wait()
	if g.Max() > 2 {
		t.Fatalf("%d holders at once, want at most 2", g.Max())
	}
	fw := zktest.Connect(t, zk)
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fw, p)) == 0 })
}

// SharedCount reads and writes Curator's encoding; the semaphore follows it; TrySet is a
// compare-and-set on the version.
func TestSharedCount(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	c, err := recipes.NewSharedCount(fw, p+"-count")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(context.Background(), p+"-count") })
	if _, _, err := c.Get(ctxFor(t, 5*time.Second)); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("Get of a missing count: %v", err)
	}
	if err := c.Set(ctxFor(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	v, ver, err := c.Get(ctxFor(t, 5*time.Second))
	if err != nil || v != 1 {
		t.Fatalf("Get = %d, %v", v, err)
	}
	if ok, err := c.TrySet(ctxFor(t, 5*time.Second), 2, ver); !ok || err != nil {
		t.Fatalf("TrySet at the current version: %v, %v", ok, err)
	}
	if ok, err := c.TrySet(ctxFor(t, 5*time.Second), 3, ver); ok || err != nil {
		t.Fatalf("TrySet at a stale version: %v, %v; want false, nil", ok, err)
	}
	s, err := recipes.NewSharedSemaphore(fw, p, c.Path())
	if err != nil {
		t.Fatal(err)
	}
	ls, err := s.Acquire(ctxFor(t, 10*time.Second), 2)
	if err != nil {
		t.Fatalf("2 leases at a count of 2: %v", err)
	}
	if _, err := s.TryAcquire(ctxFor(t, 10*time.Second), 1); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("TryAcquire of a full semaphore: %v, want ErrLocked", err)
	}
	if !s.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess false while leases are held")
	}
	if err := s.ReturnAll(ctxFor(t, 10*time.Second), ls); err != nil {
		t.Fatal(err)
	}
	if err := s.ReturnAll(ctxFor(t, 10*time.Second), ls); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("ReturnAll twice: %v, want ErrNotHeld", err)
	}
	assertEmpty(t, fw, p)
}

// SyncLocker is a sync.Locker over the lock: goroutines exclude each other through it.
func TestSyncLocker(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	m := mustMutex(t, fw, lockPath(t))
	var lk sync.Locker
	sl, err := recipes.NewSyncLocker(m.Lock)
	if err != nil {
		t.Fatal(err)
	}
	lk = sl
	var inside zktest.Gauge
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				lk.Lock()
				inside.Enter()
				inside.Leave()
				lk.Unlock()
			}
		}()
	}
	wg.Wait()
	if inside.Max() != 1 {
		t.Fatalf("%d inside at once", inside.Max())
	}
	if sl.Lease() != nil {
		t.Fatal("a lease is left after the last Unlock")
	}
}

// A lock node says who holds it by default: this process's Identity (host, pid), which
// zklock holders shows and NodeOrigin tells from Curator's IP address. A framework default
// data, when set, wins.
func TestDefaultNodeDataIsIdentity(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fw := zktest.Connect(t, zk)
	l := mustAcquire(t, mustMutex(t, fw, p), 10*time.Second)
	data, err := l.Data(ctxFor(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	id, ok := recipes.ParseIdentity(data)
	if !ok || id.PID != os.Getpid() || id.Kind != recipes.KindMutex || recipes.NodeOrigin(data) != recipes.OriginGo {
		t.Fatalf("default node data %q: identity %+v, %v", data, id, ok)
	}
	mustRelease(t, l)

	fd := zktest.Connect(t, zk, framework.WithDefaultData([]byte("10.1.2.3")))
	l = mustAcquire(t, mustMutex(t, fd, p), 10*time.Second)
	if data, err := l.Data(ctxFor(t, 5*time.Second)); err != nil || string(data) != "10.1.2.3" {
		t.Fatalf("with framework default data: %q, %v", data, err)
	}
	mustRelease(t, l)
}

// A lease names the session that owns its node: the node's ephemeral owner,
// for a mutex and for a semaphore lease alike.
func TestLeaseSessionIDIsTheNodesOwner(t *testing.T) {
	fw := zktest.Connect(t, shared)
	ctx := ctxFor(t, 20*time.Second)
	m := mustMutex(t, fw, lockPath(t))
	l := mustAcquire(t, m, 10*time.Second)
	defer mustRelease(t, l)
	s := mustSem(t, fw, lockPath(t)+"-sem", 2)
	sl := mustLeases(t, s, 1)[0]
	defer mustRelease(t, sl)
	for _, h := range []interface {
		Path() string
		SessionID() int64
	}{l, sl} {
		st, err := fw.Exists(ctx, h.Path())
		if err != nil {
			t.Fatalf("Exists(%s): %v", h.Path(), err)
		}
		if h.SessionID() == 0 || h.SessionID() != st.EphemeralOwner || h.SessionID() != fw.SessionID() {
			t.Errorf("%s: SessionID %#x, node's owner %#x, framework's session %#x", h.Path(), h.SessionID(), st.EphemeralOwner, fw.SessionID())
		}
	}
}
