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

// Tests that force an interleaving with the package's test hooks (export_test.go); they run
// against the examples' ZooKeeper.

// testCtx bounds one test step.
func testCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// testFramework opens a framework on the examples' ZooKeeper, closed at the test's end.
func testFramework(t *testing.T, opts ...framework.Option) *framework.Framework {
	t.Helper()
	fw, err := framework.New(servers(), append([]framework.Option{framework.WithSessionTimeout(4 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	if err := fw.WaitConnected(testCtx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	return fw
}

// A Downgrade that races the release of its own write lease was refused with ErrLockLost
// and ErrWriterMissing, though nothing was lost: the owner let the write lease go, which the
// docs say is ErrNotHeld. The release is forced between Downgrade's checks and its create.
func TestDowngradeRacingItsWriteReleaseIsNotHeld(t *testing.T) {
	fw := testFramework(t)
	p := zktest.UniquePath(t, "/tests")
	rw, err := recipes.NewReadWriteLock(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := rw.WriteLock().Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	defer recipes.SetDowngradeHook(func() { released <- w.Release(testCtx(t, 10*time.Second)) })()
	r, err := rw.ReadLock().Downgrade(testCtx(t, 10*time.Second), w)
	if rerr := <-released; rerr != nil {
		t.Fatalf("releasing the write lease: %v", rerr)
	}
	if err == nil {
		r.Release(testCtx(t, 10*time.Second))
		t.Fatal("Downgrade granted a read from a write lease released before its listing")
	}
	if !errors.Is(err, recipes.ErrNotHeld) || errors.Is(err, recipes.ErrLockLost) {
		t.Fatalf("Downgrade racing the write lease's release: %v, want ErrNotHeld (and not ErrLockLost)", err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes left", func() bool { return len(zktest.Children(t, fw, p)) == 0 })
}
