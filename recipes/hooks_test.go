package recipes_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"sync"
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

// A grant needs the deciding listing's session to be the one that created our node. After an
// expiry, a listing in the new session may still show the old session's node: a server that
// lags behind the one that closed the session. Such a listing is forced here (the hook adds
// the old node to the waiter's listings in the new session); when the holder releases, the
// old node looks first. It is gone: the waiter must queue again with a node of its new
// session, not be granted on the dead one.
func TestGrantNeedsTheSessionThatCreatedTheNode(t *testing.T) {
	proxy := zktest.NewProxy(t, servers()[0])
	p := zktest.UniquePath(t, "/tests")
	fa := testFramework(t)
	fb := testFramework(t, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	ma, err := recipes.NewMutex(fa, p)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := recipes.NewMutex(fb, p)
	if err != nil {
		t.Fatal(err)
	}
	la, err := ma.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		l   *recipes.Lease
		err error
	}
	got := make(chan result, 1)
	go func() {
		l, err := mb.Acquire(testCtx(t, 60*time.Second))
		got <- result{l, err}
	}()
	var old string
	zktest.Eventually(t, 10*time.Second, "the waiter to queue and watch the holder", func() bool {
		for _, k := range zktest.Children(t, fa, p) {
			if k != path.Base(la.Path()) {
				old = k
			}
		}
		return old != "" && fb.Watches() == 2 // its own node (prearm.go) and the holder's: an expiry before that would not wake it
	})
	oldID := fb.SessionID()
	shown := make(chan struct{})
	var once sync.Once
	defer recipes.SetListHook(func(l *recipes.Lock, children []string) []string {
		if l.Path() != p || fb.SessionID() == oldID || slices.Contains(children, old) {
			return children
		}
		once.Do(func() { close(shown) })
		return append(children, old) // the expired session's node, as a lagging server shows it
	})()
	id, pw := proxy.Session()
	if err := zktest.ExpireSession(testCtx(t, 10*time.Second), servers()[0], id, pw); err != nil {
		t.Fatal(err)
	}
	select {
	case <-shown:
	case r := <-got:
		t.Fatalf("the waiter ended before it listed in its new session: %v, %v", r.l, r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter never listed in a new session")
	}
	if err := la.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("no grant after the holder released")
	}
	if r.err != nil {
		t.Fatalf("Acquire: %v, want a grant on a node of the new session", r.err)
	}
	defer r.l.Release(testCtx(t, 10*time.Second))
	if path.Base(r.l.Path()) == old {
		t.Fatalf("granted on %s, the expired session 0x%x's node", old, oldID)
	}
	st, err := fa.Exists(testCtx(t, 10*time.Second), r.l.Path())
	if err != nil || st == nil || st.EphemeralOwner != fb.SessionID() || r.l.SessionID() != fb.SessionID() {
		t.Fatalf("granted on %s: stat %+v (%v), lease session 0x%x; want a node of the current session 0x%x",
			r.l.Path(), st, err, r.l.SessionID(), fb.SessionID())
	}
}
