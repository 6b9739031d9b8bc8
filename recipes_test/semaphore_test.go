package recipes_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

var leaseNode = regexp.MustCompile(`^_c_[0-9a-f-]{36}-lease-\d{10}$`)

func mustSem(t testing.TB, fw *framework.Framework, p string, max int, opts ...recipes.SemaphoreOption) *recipes.InterProcessSemaphoreV2 {
	t.Helper()
	s, err := recipes.NewSemaphore(fw, p, max, opts...)
	if err != nil {
		t.Fatalf("NewSemaphore(%s, %d): %v", p, max, err)
	}
	return s
}

func mustLeases(t testing.TB, s *recipes.InterProcessSemaphoreV2, n int) []*recipes.SemaphoreLease {
	t.Helper()
	ls, err := s.Acquire(ctxFor(t, 20*time.Second), n)
	if err != nil || len(ls) != n {
		t.Fatalf("Acquire(%s, %d): %d leases, %v", s.Path(), n, len(ls), err)
	}
	return ls
}

// acquireAsync acquires n leases in the background and delivers them.
func acquireAsync(t testing.TB, s *recipes.InterProcessSemaphoreV2, ctx context.Context, n int) <-chan []*recipes.SemaphoreLease {
	ch := make(chan []*recipes.SemaphoreLease, 1)
	go func() {
		ls, err := s.Acquire(ctx, n)
		if err != nil && ctx.Err() == nil {
			t.Errorf("background Acquire: %v", err)
		}
		ch <- ls
	}()
	return ch
}

// receive returns the next value on ch, or fails the test after 20 s, the package's bound for an
// event (zktest.Receive with a bound of the test's own where the bound matters).
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return zktest.Receive(t, ch, 20*time.Second, what)
}

// assertEmpty fails unless the semaphore left no lease and no internal-mutex
// node behind.
func assertEmpty(t testing.TB, fw *framework.Framework, p string) {
	t.Helper()
	zktest.Eventually(t, 10*time.Second, "no nodes under "+p, func() bool {
		return len(zktest.Children(t, fw, p+"/leases")) == 0 && len(zktest.Children(t, fw, p+"/locks")) == 0
	})
}

func TestSemaphoreSimple(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	one := mustSem(t, fw, p+"/one", 1, recipes.WithLeaseData([]byte("d")))
	l := mustLeases(t, one, 1)[0]
	if !leaseNode.MatchString(l.NodeName()) || path.Dir(l.Path()) != p+"/one/leases" {
		t.Fatalf("lease node %s", l.Path())
	}
	if d, err := l.Data(ctxFor(t, 5*time.Second)); err != nil || string(d) != "d" {
		t.Fatalf("lease data %q, %v", d, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := one.Acquire(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lease of 1: got %v", err)
	}
	mustRelease(t, l)

	three := mustSem(t, fw, p+"/three", 3)
	ls := mustLeases(t, three, 3)
	parts, err := three.Participants(ctxFor(t, 5*time.Second))
	if err != nil || len(parts) != 3 {
		t.Fatalf("participants %v, %v", parts, err)
	}
	fourth := acquireAsync(t, three, ctxFor(t, 30*time.Second), 1)
	stillWaiting(t, fourth, "the fourth lease")
	mustRelease(t, ls[1])
	got := receive(t, fourth, "the fourth lease")
	for _, l := range append(got, ls[0], ls[2]) {
		mustRelease(t, l)
	}
	assertEmpty(t, fw, p+"/one")
	assertEmpty(t, fw, p+"/three")
}

func TestSemaphoreBadInput(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	for _, max := range []int{0, -1} {
		if _, err := recipes.NewSemaphore(fw, "/x", max); !errors.Is(err, recipes.ErrInvalidArgument) {
			t.Errorf("max %d: %v", max, err)
		}
	}
	if _, err := recipes.NewSemaphore(nil, "/x", 1); !errors.Is(err, recipes.ErrInvalidArgument) {
		t.Errorf("nil framework: %v", err)
	}
	if _, err := recipes.NewSharedSemaphore(fw, "/x", "bad"); !errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("bad count path: %v", err)
	}
	s := mustSem(t, fw, lockPath(t), 2)
	before := fw.RequestsStarted()
	for _, n := range []int{0, -1, 3} {
		if _, err := s.Acquire(ctxFor(t, time.Second), n); !errors.Is(err, recipes.ErrInvalidArgument) {
			t.Errorf("Acquire(%d): %v", n, err)
		}
	}
	if n := fw.RequestsStarted() - before; n != 0 {
		t.Errorf("bad input sent %d requests", n)
	}
	missing, err := recipes.NewSharedSemaphore(fw, lockPath(t), lockPath(t)+"-count")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := missing.Acquire(ctxFor(t, 10*time.Second), 1); !errors.Is(err, recipes.ErrInvalidArgument) {
		t.Errorf("missing shared count: %v", err)
	}
	assertEmpty(t, fw, missing.Path())
}

// 100 goroutines over 10 sessions take random amounts; the maximum is never
// exceeded and nothing is left behind.
func TestSemaphoreMaxNeverExceeded(t *testing.T) {
	zk := shared
	p := lockPath(t)
	const max = 5
	var sems []*recipes.InterProcessSemaphoreV2
	for range 10 {
		sems = append(sems, mustSem(t, zktest.Connect(t, zk), p, max))
	}
	var inUse zktest.Gauge
	var wg sync.WaitGroup
	for g := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 1 + rand.IntN(3)
			ls, err := sems[g%10].Acquire(ctxFor(t, 90*time.Second), n)
			if err != nil {
				t.Errorf("Acquire(%d): %v", n, err)
				return
			}
			now := inUse.Add(int32(n))
			if now > max {
				t.Errorf("%d leases in use, max %d", now, max)
			}
			time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond) // work while holding
			inUse.Add(-int32(n))
			for _, l := range ls {
				if err := l.Release(context.Background()); err != nil {
					t.Errorf("release: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if inUse.Max() < 2 {
		t.Fatalf("leases never overlapped (peak %d)", inUse.Max())
	}
	assertEmpty(t, zktest.Connect(t, zk), p)
}

// Closing a client frees its leases for a waiter.
func TestSemaphoreCloseFreesLeases(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	mustLeases(t, mustSem(t, fa, p, 2), 2)
	got := acquireAsync(t, mustSem(t, fb, p, 2), ctxFor(t, 30*time.Second), 2)
	stillWaiting(t, got, "the waiter")
	fa.Close()
	for _, l := range receive(t, got, "the leases of the closed client") {
		mustRelease(t, l)
	}
	assertEmpty(t, fb, p)
}

// A waiter whose lease node is deleted underneath it starts again and still
// gets a lease; a cancelled waiter removes its lease; nothing is orphaned.
func TestSemaphoreWaiterLeaseDeletedAndCancelled(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	held := mustLeases(t, mustSem(t, fa, p, 1), 1)[0]
	sb := mustSem(t, fb, p, 1)

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := acquireAsync(t, sb, ctx, 1)
	zktest.Eventually(t, 10*time.Second, "the waiter's lease", func() bool { return len(zktest.Children(t, fa, p+"/leases")) == 2 })
	cancel()
	if ls := receive(t, cancelled, "the cancelled waiter"); ls != nil {
		t.Fatalf("cancelled waiter got leases")
	}
	zktest.Eventually(t, 10*time.Second, "the cancelled lease to go", func() bool {
		return len(zktest.Children(t, fa, p+"/leases")) == 1 && len(zktest.Children(t, fa, p+"/locks")) == 0
	})

	got := acquireAsync(t, sb, ctxFor(t, 30*time.Second), 1)
	var victim string
	zktest.Eventually(t, 10*time.Second, "the waiter's lease", func() bool {
		for _, k := range zktest.Children(t, fa, p+"/leases") {
			if p+"/leases/"+k != held.Path() {
				victim = p + "/leases/" + k
			}
		}
		return victim != ""
	})
	if err := fa.Delete(ctxFor(t, 5*time.Second), victim); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "a new waiter lease", func() bool {
		kids := zktest.Children(t, fa, p+"/leases")
		return len(kids) == 2 && p+"/leases/"+kids[0] != victim && p+"/leases/"+kids[1] != victim
	})
	mustRelease(t, held)
	mustRelease(t, receive(t, got, "the re-queued waiter")[0])
	assertEmpty(t, fa, p)
}

// Raising a shared maximum wakes the waiter (Curator's testThreadedLeaseIncrease).
func TestSemaphoreSharedMaxRaised(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fw := zktest.Connect(t, zk)
	count := sharedCountNode(t, fw, p, 1)
	s := mustSharedSemaphore(t, fw, p, count)
	raisingTheCountWakesAWaiter(t, fw, p, count, s, s)
}

func mustSemLease(t testing.TB, m *recipes.InterProcessSemaphoreMutex) *recipes.SemaphoreLease {
	t.Helper()
	l, err := m.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatalf("Acquire(%s): %v", m.Path(), err)
	}
	return l
}

// A session expiry while waiting leaves no orphaned lease (CURATOR-315): the
// waiter starts again in its new session and gets the lease.
func TestSemaphoreSessionExpiryWhileWaiting(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t)
	p := lockPath(t)
	held := mustLeases(t, mustSem(t, fa, p, 1), 1)[0]
	got := acquireAsync(t, mustSem(t, fb, p, 1), ctxFor(t, 60*time.Second), 1)
	zktest.Eventually(t, 10*time.Second, "the waiter's lease", func() bool { return len(zktest.Children(t, fa, p+"/leases")) == 2 })
	var old string
	for _, k := range zktest.Children(t, fa, p+"/leases") {
		if p+"/leases/"+k != held.Path() {
			old = k
		}
	}
	oldID := fb.SessionID()
	id, pw := proxy.Session()
	expireSession(t, zk, id, pw)
	zktest.Eventually(t, 20*time.Second, "a new session and a new waiter lease", func() bool {
		kids := zktest.Children(t, fa, p+"/leases")
		return fb.SessionID() != oldID && len(kids) == 2 && kids[0] != old && kids[1] != old
	})
	mustRelease(t, held)
	l := receive(t, got, "the waiter after its session expired")[0]
	if len(zktest.Children(t, fa, p+"/leases")) != 1 {
		t.Fatalf("orphaned leases: %v", zktest.Children(t, fa, p+"/leases"))
	}
	mustRelease(t, l)
	assertEmpty(t, fa, p)
}

// The semaphore mutex is not reentrant and may be released from any
// goroutine; releasing it when not held is ErrNotHeld.
func TestSemaphoreMutex(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	m, err := recipes.NewSemaphoreMutex(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Release(ctxFor(t, time.Second)); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("release before acquire: %v", err)
	}
	l := mustSemLease(t, m)
	if !m.IsAcquired() {
		t.Fatal("not acquired")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := m.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second acquire by the holder: got %v, want a wait", err)
	}
	if _, err := m.TryAcquire(ctxFor(t, 5*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("try while held: got %v, want ErrLocked", err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Release(context.Background()) }()
	if err := receive(t, done, "the release from another goroutine"); err != nil {
		t.Fatalf("release from another goroutine: %v", err)
	}
	if err := m.Release(ctxFor(t, time.Second)); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("second release: %v", err)
	}
	l = mustSemLease(t, m)
	mustRelease(t, l)
	if m.IsAcquired() {
		t.Fatal("still acquired after the lease's release")
	}
	assertEmpty(t, fw, p)
}
