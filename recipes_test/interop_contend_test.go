package recipes_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/interop"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// foreignMutex is a foreign client's mutex (kazoo's Lock, Curator's InterProcessMutex), driven
// through its interop process; timeout is the client's own bound on the acquire.
type foreignMutex interface {
	Acquire(ctx context.Context, path string, timeout time.Duration) (string, error)
	Release(ctx context.Context, path string) error
}

// foreignRW is a foreign client's read-write lock, driven through its interop process.
type foreignRW interface {
	ReadAcquire(ctx context.Context, path string, timeout time.Duration) (string, error)
	ReadRelease(ctx context.Context, path string) error
	WriteAcquire(ctx context.Context, path string, timeout time.Duration) (string, error)
	WriteRelease(ctx context.Context, path string) error
}

// foreignAcquire adapts c's mutex on p to contend.
func foreignAcquire(t *testing.T, c foreignMutex, p string) func() (func() error, error) {
	return func() (func() error, error) {
		_, err := c.Acquire(ctxFor(t, 60*time.Second), p, 50*time.Second)
		return func() error { return c.Release(ctxFor(t, 20*time.Second), p) }, err
	}
}

// ourAcquire adapts one of our locks (its Acquire) to contend.
func ourAcquire(t *testing.T, acquire func(context.Context) (*recipes.Lease, error)) func() (func() error, error) {
	return func() (func() error, error) {
		l, err := acquire(ctxFor(t, 60*time.Second))
		return func() error { return l.Release(context.Background()) }, err
	}
}

// rwContend is contend for a read-write lock: each round acquires a write lock one time in
// four and a read lock otherwise, and passes through check. who names the contender in errors.
func rwContend(t *testing.T, wg *sync.WaitGroup, rounds int, check *rwCheck, who string, hold time.Duration, acquire func(write bool) (func() error, error)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for r := 0; r < rounds; r++ {
			write := rand.IntN(4) == 0
			release, err := acquire(write)
			if err != nil {
				t.Errorf("%s acquire (write=%v): %v", who, write, err)
				return
			}
			check.enter(write)
			time.Sleep(hold) // a short critical section, so readers can overlap (none when hold is 0)
			check.leave(write)
			if err := release(); err != nil {
				t.Errorf("%s release: %v", who, err)
				return
			}
		}
	}()
}

// foreignRWAcquire adapts c's read-write lock on p to rwContend.
func foreignRWAcquire(t *testing.T, c foreignRW, p string) func(bool) (func() error, error) {
	return func(write bool) (func() error, error) {
		acquire, release := c.ReadAcquire, c.ReadRelease
		if write {
			acquire, release = c.WriteAcquire, c.WriteRelease
		}
		_, err := acquire(ctxFor(t, 60*time.Second), p, 50*time.Second)
		return func() error { return release(ctxFor(t, 20*time.Second), p) }, err
	}
}

// ourRWAcquire adapts our read-write lock to rwContend.
func ourRWAcquire(t *testing.T, rw *recipes.InterProcessReadWriteLock) func(bool) (func() error, error) {
	return func(write bool) (func() error, error) {
		lock := rw.ReadLock().Lock
		if write {
			lock = rw.WriteLock().Lock
		}
		return ourAcquire(t, lock.Acquire)()
	}
}

// foreignHandsOver plays the end of a foreign holder's turn on mutex p: c releases, our waiter
// (got) is granted, held (when not nil) checks the lease, c cannot take p from our holder (its
// short acquire times out), and c takes p once we release (and releases it). who names c.
func foreignHandsOver(t *testing.T, c foreignMutex, p, who string, got <-chan *recipes.Lease, held func(*recipes.Lease)) {
	t.Helper()
	if err := c.Release(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
	l := receive(t, got, "our waiter after the "+who+" holder released")
	if l == nil {
		t.FailNow()
	}
	if held != nil {
		held(l)
	}
	if _, err := c.Acquire(ctxFor(t, 10*time.Second), p, 200*time.Millisecond); !errors.Is(err, interop.ErrTimeout) {
		t.Fatalf("%s acquire under a Go holder: %v, want a timeout", who, err)
	}
	mustRelease(t, l)
	if _, err := c.Acquire(ctxFor(t, 10*time.Second), p, 10*time.Second); err != nil {
		t.Fatalf("%s acquire after the Go release: %v", who, err)
	}
	if err := c.Release(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
}

// foreignHoldsWhileWeQueue has c take mutex m's path and returns c's node: m cannot take it
// (TryAcquire: ErrLocked), and our waiter, returned, queues behind c (seen through fw). who
// names c.
func foreignHoldsWhileWeQueue(t *testing.T, c foreignMutex, who string, fw *framework.Framework, m *recipes.InterProcessMutex) (string, <-chan *recipes.Lease) {
	t.Helper()
	p := m.Path()
	node, err := c.Acquire(ctxFor(t, 20*time.Second), p, 10*time.Second)
	if err != nil {
		t.Fatalf("%s acquire: %v", who, err)
	}
	if _, err := m.TryAcquire(ctxFor(t, 5*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("Go TryAcquire under a %s holder: %v, want ErrLocked", who, err)
	}
	got := leaseAsync(t, "Go waiter", 30*time.Second, m.Acquire)
	zktest.Eventually(t, 10*time.Second, "the Go waiter to queue", func() bool { return len(zktest.Children(t, fw, p)) == 2 })
	return node, got
}

// mutexExclusionWith has two foreign contenders (each from start) and two of ours (each from
// ours) take mutex p in turn, 25 rounds each: never two holders. who names the foreign side.
func mutexExclusionWith(t *testing.T, p, who string, start func() foreignMutex, ours func() *recipes.InterProcessMutex) {
	t.Helper()
	const rounds = 25
	var holders zktest.Gauge
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		contend(t, &wg, rounds, &holders, 0, foreignAcquire(t, start(), p))
	}
	for i := 0; i < 2; i++ {
		contend(t, &wg, rounds, &holders, 0, ourAcquire(t, ours().Acquire))
	}
	wg.Wait()
	if n := holders.Max(); n != 1 {
		t.Fatalf("max holders across Go and %s = %d, want 1", who, n)
	}
}

// rwExclusionWith has two foreign contenders (each from start) and two of ours (each from ours)
// read- and write-lock p at random, 20 rounds each: never two writers, never a writer with a
// reader. who names the foreign side.
func rwExclusionWith(t *testing.T, p, who string, start func() foreignRW, ours func() *recipes.InterProcessReadWriteLock) {
	t.Helper()
	const rounds = 20
	var check rwCheck
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		rwContend(t, &wg, rounds, &check, who, 0, foreignRWAcquire(t, start(), p))
	}
	for i := 0; i < 2; i++ {
		rwContend(t, &wg, rounds, &check, "Go", time.Millisecond, ourRWAcquire(t, ours()))
	}
	wg.Wait()
	if check.violations != 0 {
		t.Fatalf("%d read-write exclusion violations across Go and %s", check.violations, who)
	}
	t.Logf("most concurrent readers: %d", check.maxReaders)
}
