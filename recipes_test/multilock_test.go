package recipes_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// multiRounds is how many times each of two clients takes the pair in the
// deadlock test.
const multiRounds = 1000

// Two clients take {A, B} and {B, A} over and over without a deadlock:
// the multi-lock takes them in path order whatever the caller's order.
func TestMultiLockNoDeadlock(t *testing.T) {
	zk := shared
	p := lockPath(t)
	a, b := p+"/a", p+"/b"
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	ma, err1 := recipes.NewMultiMutex(fa, a, b)
	mb, err2 := recipes.NewMultiMutex(fb, b, a)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !slices.Equal(mb.Paths(), []string{a, b}) {
		t.Fatalf("order %v, want %v", mb.Paths(), []string{a, b})
	}
	ctx := ctxFor(t, 120*time.Second)
	var wg sync.WaitGroup
	for _, m := range []*recipes.InterProcessMultiLock{ma, mb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < multiRounds && ctx.Err() == nil; i++ {
				l, err := m.Acquire(ctx)
				if err != nil {
					t.Errorf("round %d: %v", i, err)
					return
				}
				if err := l.Release(ctx); err != nil {
					t.Errorf("release %d: %v", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatal("deadlocked or too slow")
	}
	if len(zktest.Children(t, fa, a))+len(zktest.Children(t, fa, b)) != 0 {
		t.Fatal("nodes left")
	}
}

// If one lock cannot be taken, none is held afterwards: the locks taken are released, in the
// background once the acquire's ctx has ended.
func TestMultiLockAllOrNone(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	rw := mustRW(t, fa, p+"/rw")
	sm, err := recipes.NewSemaphoreMutex(fa, p+"/sem")
	if err != nil {
		t.Fatal(err)
	}
	// Mixed kinds: a mutex, a read lock, a semaphore mutex and (blocked) a write lock.
	blocker := mustLease(t, mustRW(t, fb, p+"/w").ReadLock(), ctxFor(t, 10*time.Second))
	ml, err := recipes.NewMultiLock(mustMutex(t, fa, p+"/m"), rw.ReadLock(), sm, mustRW(t, fa, p+"/w").WriteLock())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := ml.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("multi-lock with a blocked member: got %v", err)
	}
	for _, dir := range []string{p + "/m", p + "/rw", p + "/sem/leases", p + "/sem/locks"} {
		zktest.Eventually(t, 10*time.Second, dir+" released after a failed multi-lock", func() bool {
			return len(zktest.Children(t, fa, dir)) == 0
		})
	}
	mustRelease(t, blocker)
	held, err := ml.Acquire(ctxFor(t, 10*time.Second))
	if err != nil || len(held.Leases()) != 4 {
		t.Fatalf("multi-lock: %v", err)
	}
	if err := held.Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := held.Release(ctxFor(t, time.Second)); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("second release: %v", err)
	}
}

// Release goes on past a lease whose client closed (lost: nil) and releases the others.
func TestMultiLockReleaseGoesOnPastErrors(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa := zktest.Connect(t, zk)
	fb, err := framework.New(zk.Servers())
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	if err := fb.WaitConnected(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	// p+"/z" sorts last, so it is released first, and fails.
	ml, err := recipes.NewMultiLock(mustMutex(t, fa, p+"/a"), mustMutex(t, fb, p+"/z"))
	if err != nil {
		t.Fatal(err)
	}
	held, err := ml.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	fb.Close()
	// The lease of the closed client was lost with its session: its Release returns nil.
	if err := held.Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatalf("release with a closed client: got %v, want nil", err)
	}
	if kids := zktest.Children(t, fa, p+"/a"); len(kids) != 0 {
		t.Fatalf("the healthy lock was not released: %v", kids)
	}
}

// deadlineRecorder wraps a lock and records the deadline it was given.
type deadlineRecorder struct {
	recipes.Locker
	mu        *sync.Mutex
	deadlines *[]time.Time
}

func (d deadlineRecorder) Hold(ctx context.Context) (recipes.Held, error) {
	dl, _ := ctx.Deadline()
	d.mu.Lock()
	*d.deadlines = append(*d.deadlines, dl)
	d.mu.Unlock()
	return d.Locker.Hold(ctx)
}

// One deadline covers the whole set: every member sees the caller's.
func TestMultiLockOneDeadline(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	var mu sync.Mutex
	var got []time.Time
	var locks []recipes.Locker
	for _, name := range []string{"/c", "/a", "/b"} {
		locks = append(locks, deadlineRecorder{mustMutex(t, fw, p+name), &mu, &got})
	}
	ml, err := recipes.NewMultiLock(locks...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t, 10*time.Second)
	want, _ := ctx.Deadline()
	held, err := ml.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != want || got[1] != want || got[2] != want {
		t.Fatalf("deadlines %v, want 3 x %v", got, want)
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestMultiLockBadInput(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	m := func(p string) recipes.Locker { return mustMutex(t, fw, p) }
	for _, tc := range []struct {
		name  string
		locks []recipes.Locker
	}{
		{"empty", nil},
		{"nil", []recipes.Locker{m("/a"), nil}},
		{"duplicate", []recipes.Locker{m("/a"), m("/b"), m("/a")}},
		{"nested", []recipes.Locker{m("/a/b"), m("/a-x"), m("/a")}},
		{"read and write of one lock", []recipes.Locker{mustRW(t, fw, "/rw").ReadLock(), mustRW(t, fw, "/rw").WriteLock()}},
	} {
		if _, err := recipes.NewMultiLock(tc.locks...); !errors.Is(err, recipes.ErrInvalidArgument) {
			t.Errorf("%s: got %v, want ErrInvalidArgument", tc.name, err)
		}
	}
	if _, err := recipes.NewMultiMutex(fw, "/a", "bad"); !errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("bad path: %v", err)
	}
	ml, err := recipes.NewMultiLock(m("/a"), m("/a-x"), m("/b/c"))
	if err != nil {
		t.Fatalf("disjoint paths refused: %v", err)
	}
	//lint:ignore SA1012 a nil context is the bad input under test
	if _, err := ml.Acquire(nil); !errors.Is(err, framework.ErrNilContext) { //nolint:staticcheck
		t.Errorf("nil ctx: %v", err)
	}
}

// After a workload of every kind with waiters, and once the clients close,
// no watch is left on the client or the server and no node remains.
func TestRecipesLeaveNothingBehind(t *testing.T) {
	zk := shared
	p := lockPath(t)
	var fws []*framework.Framework
	for range 2 {
		fw, err := framework.New(zk.Servers(), framework.WithSessionTimeout(4*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer fw.Close()
		if err := fw.WaitConnected(ctxFor(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
		fws = append(fws, fw)
	}
	var wg sync.WaitGroup
	for i, fw := range fws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw, _ := recipes.NewReadWriteLock(fw, p+"/rw")
			sem, _ := recipes.NewSemaphore(fw, p+"/sem", 1)
			sm, _ := recipes.NewSemaphoreMutex(fw, p+"/sm")
			lockers := []recipes.Locker{rw.WriteLock(), rw.ReadLock(), sm}
			for j := range 20 {
				ctx := ctxFor(t, 30*time.Second)
				var ml *recipes.InterProcessMultiLock
				if (i+j)%2 == 0 {
					ml, _ = recipes.NewMultiLock(lockers[j%3], mustMutexNoFatal(fw, p+"/m"))
				} else {
					ml, _ = recipes.NewMultiLock(mustMutexNoFatal(fw, p+"/m"), lockers[j%3])
				}
				held, err := ml.Acquire(ctx)
				if err != nil {
					t.Errorf("multi: %v", err)
					return
				}
				ls, err := sem.Acquire(ctx, 1)
				if err != nil {
					t.Errorf("semaphore: %v", err)
					return
				}
				if err := errors.Join(ls[0].Release(ctx), held.Release(ctx)); err != nil {
					t.Errorf("release: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	for _, fw := range fws {
		if n := fw.Watches(); n != 0 {
			t.Errorf("%d client watches left after every release", n)
		}
		fw.Close()
	}
	zktest.Eventually(t, 10*time.Second, "no server watches", func() bool {
		n, err := zk.Member(0).WatchCount(ctxFor(t, 5*time.Second))
		return err == nil && n == 0
	})
	check := zktest.Connect(t, zk)
	for _, dir := range []string{"/rw", "/m", "/sem/leases", "/sem/locks", "/sm/leases", "/sm/locks"} {
		if kids := zktest.Children(t, check, p+dir); len(kids) != 0 {
			t.Errorf("%s: nodes left %v", dir, kids)
		}
	}
}

func mustMutexNoFatal(fw *framework.Framework, p string) *recipes.InterProcessMutex {
	m, err := recipes.NewMutex(fw, p)
	if err != nil {
		panic(err)
	}
	return m
}

// A multi-lease is held only as a whole: Done closes as soon as any of its
// leases ends, with that lease's reason, and Release ends it too.
func TestMultiLeaseDone(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	m, err := recipes.NewMultiMutex(fw, p+"/a", p+"/b")
	if err != nil {
		t.Fatal(err)
	}
	ml, err := m.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ml.Done():
		t.Fatalf("Done closed while every lease is held: %v", ml.Err())
	default:
	}
	mustRelease(t, ml.Leases()[1]) // one member ends on its own
	zktest.Receive(t, ml.Done(), 10*time.Second, "Done to close when a member lease ended")
	if !errors.Is(ml.Err(), recipes.ErrReleased) {
		t.Fatalf("Err = %v, want ErrReleased", ml.Err())
	}
	if err := ml.Release(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("Release with a member already released = %v, want ErrNotHeld joined", err)
	}
}
