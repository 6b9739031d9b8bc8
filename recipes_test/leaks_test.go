package recipes_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// SyncLocker.Lock cannot return an error, so it tries again after a failed acquire; it must
// pause between tries under the framework's retry policy, not hammer the server with a
// permanent error (here ErrQueueTooDeep, forced by a listing limit no listing fits under).
func TestSyncLockerBacksOffAPermanentError(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	m := mustMutex(t, fw, lockPath(t), recipes.WithListingLimit(1))
	if _, err := m.Acquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrQueueTooDeep) {
		t.Fatalf("Acquire with a 1-byte listing limit: %v, want ErrQueueTooDeep", err)
	}
	sl, err := recipes.NewSyncLocker(m.Lock)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan any, 1)
	go func() {
		defer func() { ended <- recover() }() // Lock panics once the framework is closed
		sl.Lock()
	}()
	const window = 2 * time.Second
	before := fw.RequestsStarted()
	time.Sleep(window) // the measured window: requests are counted over a fixed time
	sent := fw.RequestsStarted() - before
	fw.Close()
	select {
	case r := <-ended:
		if r == nil {
			t.Fatal("Lock returned without the lock and without a panic")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Lock did not end after the framework closed")
	}
	// The default policy (ExponentialBackoff(100ms, 3)) pauses at least 100 ms between tries
	// of ~3 requests each (create, list, delete): at most ~60 in the window.
	if sent > 150 {
		t.Fatalf("%d requests in %v: Lock retries a permanent error without pausing", sent, window)
	}
	t.Logf("%d requests in %v", sent, window)
}

// Each shared-count semaphore object read the count with a watch and kept a goroutine on that
// watch until the count changed: 500 objects on one count node, 500 goroutines, though the
// framework shares the one watch between them. The goroutine count must stay bounded by a
// constant, and a waiter must still be woken when the count changes.
func TestSharedSemaphoreObjectsKeepNoGoroutineEach(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	count := p + "-count"
	if _, err := fw.Create(ctxFor(t, 5*time.Second), count, driver.EncodeCount(1), framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(context.Background(), count) })
	newSem := func() *recipes.InterProcessSemaphoreV2 {
		s, err := recipes.NewSharedSemaphore(fw, p, count)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mustRelease(t, mustLeases(t, newSem(), 1)[0]) // the first read of the count sets the watch
	base := runtime.NumGoroutine()
	const objects = 500
	for range objects {
		mustRelease(t, mustLeases(t, newSem(), 1)[0]) // each object reads the count once
	}
	if g := runtime.NumGoroutine(); g > base+5 {
		t.Fatalf("%d goroutines after %d semaphore objects read the count, %d before", g, objects, base)
	}
	if w := fw.Watches(); w > 2 {
		t.Fatalf("%d live watches, want the count's (shared) and no more", w)
	}

	held := mustLeases(t, newSem(), 1)
	got := acquireAsync(t, newSem(), ctxFor(t, 30*time.Second), 1)
	stillWaiting(t, got, "a second lease at maximum 1")
	if _, err := fw.Set(ctxFor(t, 5*time.Second), count, driver.EncodeCount(2), -1); err != nil {
		t.Fatal(err)
	}
	second := receive(t, got, "the waiter after the count was raised")
	mustRelease(t, held[0])
	mustRelease(t, second[0])
	assertEmpty(t, fw, p)
}
