package recipes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 28, interop: Curator needs no change to share a path with sticky Go locks. It sees an
// idle node as a holder, queues behind it, and gets the lock within its timeout (our idle node
// goes when it queues); a Curator reader leaves our cached read node in place, and a Curator
// writer takes the lock from it.
func TestInteropStickyWithCurator(t *testing.T) {
	java := startCurator(t, shared.Servers())
	fw := zktest.Connect(t, shared)
	p := lockPath(t)
	m := stickyMutex(t, fw, p+"/mutex", time.Minute)
	idle, _ := idleOnce(t, m)
	if _, err := java.Acquire(ctxFor(t, 20*time.Second), p+"/mutex", 10*time.Second); err != nil {
		t.Fatalf("Curator acquire behind our idle node: %v", err)
	}
	if _, err := m.TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("sticky TryAcquire under the Curator holder: %v, want ErrLocked", err)
	}
	if err := java.Release(ctxFor(t, 10*time.Second), p+"/mutex"); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, m, 10*time.Second)
	if l.Path() == idle {
		t.Fatalf("re-granted %s after Curator held the lock", idle)
	}
	mustRelease(t, l)

	rw := mustRW(t, fw, p+"/rw", recipes.WithSticky(time.Minute))
	read := idleLease(t, rw.ReadLock())
	if _, err := java.ReadAcquire(ctxFor(t, 20*time.Second), p+"/rw", 10*time.Second); err != nil {
		t.Fatalf("Curator read beside our cached read: %v", err)
	}
	if err := java.ReadRelease(ctxFor(t, 10*time.Second), p+"/rw"); err != nil {
		t.Fatal(err)
	}
	syncRead(t, fw, p+"/rw")
	again := mustLease(t, rw.ReadLock(), ctxFor(t, 10*time.Second))
	if again.Path() != read {
		t.Fatalf("a Curator reader took our cached read: got %s, want %s", again.Path(), read)
	}
	mustRelease(t, again)
	if _, err := java.WriteAcquire(ctxFor(t, 20*time.Second), p+"/rw", 10*time.Second); err != nil {
		t.Fatalf("Curator write behind our cached read: %v", err)
	}
	if err := java.WriteRelease(ctxFor(t, 10*time.Second), p+"/rw"); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}
