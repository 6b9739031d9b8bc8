package recipes_test

import (
	"errors"
	"testing"
	"time"

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
