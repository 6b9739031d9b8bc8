package recipes_test

import (
	"context"
	"errors"
	"path"
	"regexp"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// mustMutex builds a mutex or fails the test.
func mustMutex(t testing.TB, fw *framework.Framework, p string, opts ...recipes.LockOption) *recipes.InterProcessMutex {
	t.Helper()
	m, err := recipes.NewMutex(fw, p, opts...)
	if err != nil {
		t.Fatalf("NewMutex(%s): %v", p, err)
	}
	return m
}

// leaseAsync runs acquire on a goroutine under a ctx bounded by d; the lease arrives on the
// channel (nil after an error, which fails the test).
func leaseAsync(t testing.TB, what string, d time.Duration, acquire func(context.Context) (*recipes.Lease, error)) <-chan *recipes.Lease {
	t.Helper()
	ctx := ctxFor(t, d)
	got := make(chan *recipes.Lease, 1)
	go func() {
		l, err := acquire(ctx)
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		got <- l
	}()
	return got
}

func mustAcquire(t testing.TB, m *recipes.InterProcessMutex, d time.Duration) *recipes.Lease {
	t.Helper()
	l, err := m.Acquire(ctxFor(t, d))
	if err != nil {
		t.Fatalf("Acquire(%s): %v", m.Path(), err)
	}
	return l
}

func mustRelease(t testing.TB, l recipes.Held) {
	t.Helper()
	if err := l.Release(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatalf("Release(%s): %v", l.Path(), err)
	}
}

// tok returns l's fencing token or fails the test.
func tok(t testing.TB, l recipes.Held) int64 {
	t.Helper()
	n, err := l.Token(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatalf("Token(%s): %v", l.Path(), err)
	}
	return n
}

var mutexNode = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-\d{10}$`)

// Curator's test2Clients: a second client cannot take the lock until the
// first releases it.
func TestMutexTwoClients(t *testing.T) {
	zk := shared
	p := lockPath(t)
	a := mustMutex(t, zktest.Connect(t, zk), p)
	b := mustMutex(t, zktest.Connect(t, zk), p)

	la := mustAcquire(t, a, 10*time.Second)
	if !mutexNode.MatchString(path.Base(la.Path())) {
		t.Fatalf("node %q does not have Curator's layout", la.Path())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second client: got %v, want deadline exceeded", err)
	}
	if _, err := b.TryAcquire(ctxFor(t, 5*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("TryAcquire on a held lock: got %v, want ErrLocked", err)
	} else if le, ok := errors.AsType[*recipes.LockedError](err); !ok || le.Path != p {
		t.Fatalf("TryAcquire on a held lock: %v: errors.As gives %+v, want a LockedError of %s", err, le, p)
	}
	mustRelease(t, la)
	lb := mustAcquire(t, b, 10*time.Second)
	if tok(t, lb) <= tok(t, la) {
		t.Fatalf("fencing token did not grow: %d then %d", tok(t, la), tok(t, lb))
	}
	mustRelease(t, lb)
	if kids := zktest.Children(t, zktest.Connect(t, zk), p); len(kids) != 0 {
		t.Fatalf("nodes left behind: %v", kids)
	}
}

// Reentrancy goes through the lease (or a context carrying it), costs no
// ZooKeeper traffic, and only the last release deletes the node.
func TestMutexReentrancy(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	m := mustMutex(t, fw, p)
	l := mustAcquire(t, m, 10*time.Second)
	// The held lease sets its own-node watch after the grant, in the background (ownarm.go):
	// its getData must not be counted as the re-entry's (1 in 60 runs did before).
	zktest.Eventually(t, 10*time.Second, "the lease's own-node watch is set", func() bool { return fw.Watches() >= 1 })

	before := fw.RequestsStarted()
	if err := l.Reenter(); err != nil {
		t.Fatalf("Reenter: %v", err)
	}
	if err := l.Reenter(); err != nil {
		t.Fatalf("Reenter: %v", err)
	}
	if n := fw.RequestsStarted() - before; n != 0 {
		t.Fatalf("re-entry sent %d requests, want 0", n)
	}
	// A plain Acquire, even by the holder, is another contender.
	if _, err := m.TryAcquire(ctxFor(t, 5*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("a second Acquire on the same mutex: got %v, want ErrLocked", err)
	}
	if !m.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess = false while held")
	}
	for i := 0; i < 2; i++ {
		mustRelease(t, l)
		if kids := zktest.Children(t, fw, p); len(kids) != 1 {
			t.Fatalf("after %d of 3 releases: nodes %v, want ours only", i+1, kids)
		}
		if l.Err() != nil {
			t.Fatalf("lease ended early: %v", l.Err())
		}
	}
	// The last release may come from another goroutine that was handed the lease.
	done := make(chan error, 1)
	go func() { done <- l.Release(context.Background()) }()
	if err := receive(t, done, "the last release"); err != nil {
		t.Fatalf("last release from another goroutine: %v", err)
	}
	if !errors.Is(l.Err(), recipes.ErrReleased) {
		t.Fatalf("Err after release = %v, want ErrReleased", l.Err())
	}
	select {
	case <-l.Done():
	default:
		t.Fatal("Done not closed after the last release")
	}
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("nodes left after the last release: %v", kids)
	}
	if m.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess = true after the last release")
	}
	if err := l.Release(ctxFor(t, time.Second)); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("release twice: got %v, want ErrNotHeld", err)
	}
	if err := l.Reenter(); !errors.Is(err, recipes.ErrNotHeld) {
		t.Fatalf("re-enter a released lease: got %v, want ErrNotHeld", err)
	}
}

func TestMutexBadInput(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	for _, p := range []string{"", "relative", "/", "/zookeeper/x", "/a//b", "/a/"} {
		if _, err := recipes.NewMutex(fw, p); !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("NewMutex(%q): got %v, want ErrInvalidPath", p, err)
		}
	}
	if _, err := recipes.NewMutex(nil, "/x"); !errors.Is(err, recipes.ErrInvalidArgument) {
		t.Errorf("NewMutex(nil framework): got %v", err)
	}
	p := lockPath(t)
	m := mustMutex(t, fw, p)
	before := fw.RequestsStarted()
	//lint:ignore SA1012 a nil context is the bad input under test
	if _, err := m.Acquire(nil); !errors.Is(err, framework.ErrNilContext) { //nolint:staticcheck
		t.Errorf("Acquire(nil): got %v, want ErrNilContext", err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Acquire(done); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire(done ctx): got %v, want context.Canceled", err)
	}
	if n := fw.RequestsStarted() - before; n != 0 {
		t.Errorf("bad input sent %d requests, want 0", n)
	}
}

// A node's data is what the option says, and participants come holder first.
func TestMutexParticipantsAndData(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	a := mustMutex(t, fa, p, recipes.WithNodeData([]byte("alpha")))
	b := mustMutex(t, fb, p, recipes.WithNodeData([]byte("beta")))
	la := mustAcquire(t, a, 10*time.Second)
	waiting := make(chan *recipes.Lease, 1)
	go func() {
		l, err := b.Acquire(context.Background())
		if err != nil {
			t.Errorf("b.Acquire: %v", err)
		}
		waiting <- l
	}()
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fa, p)) == 2 })
	parts, err := a.Participants(ctxFor(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Path != la.Path() || string(parts[0].Data) != "alpha" || string(parts[1].Data) != "beta" {
		t.Fatalf("participants = %+v, want alpha (holder %s) then beta", parts, la.Path())
	}
	mustRelease(t, la)
	mustRelease(t, <-waiting)
}

// A check op on the holder's node makes a transaction commit only while the
// lock is held.
func TestMutexGuard(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	data := p + "-data"
	if _, err := fw.Create(ctxFor(t, 5*time.Second), data, []byte("0"), framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, mustMutex(t, fw, p), 10*time.Second)
	guard := l.Guard()
	if _, err := fw.Multi(ctxFor(t, 5*time.Second), guard, framework.SetOp(data, []byte("1"), -1)); err != nil {
		t.Fatalf("guarded write while holding: %v", err)
	}
	mustRelease(t, l)
	if _, err := fw.Multi(ctxFor(t, 5*time.Second), guard, framework.SetOp(data, []byte("2"), -1)); err == nil {
		t.Fatal("guarded write after release succeeded")
	}
	got, _, err := fw.Get(ctxFor(t, 5*time.Second), data)
	if err != nil || string(got) != "1" {
		t.Fatalf("data = %q, %v; want 1", got, err)
	}
	if err := fw.Delete(ctxFor(t, 5*time.Second), data); err != nil {
		t.Fatal(err)
	}
}

// Curator's testRevocation: writing __REVOKE__ into the holder's node calls
// its listener, which releases.
func TestMutexRevocation(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	revoked := make(chan *recipes.Lease, 1)
	a := mustMutex(t, fa, p, recipes.WithRevocation(func(l *recipes.Lease) { revoked <- l }))
	la := mustAcquire(t, a, 10*time.Second)
	// Curator writes empty data into revocable nodes; any data interoperates (Curator never
	// reads it), so ours keeps the holder's identity (issue 11: WithRevocation dropped it).
	if data, _, err := fa.Get(ctxFor(t, 5*time.Second), la.Path()); err != nil || recipes.NodeOrigin(data) != recipes.OriginGo {
		t.Fatalf("revocable node data = %q, %v; want our identity", data, err)
	}
	parts, err := mustMutex(t, fb, p).Participants(ctxFor(t, 5*time.Second))
	if err != nil || len(parts) != 1 {
		t.Fatalf("participants: %v, %v", parts, err)
	}
	if err := recipes.Revoke(ctxFor(t, 5*time.Second), fb, parts[0].Path); err != nil {
		t.Fatal(err)
	}
	l := zktest.Receive(t, revoked, 10*time.Second, "the revocation listener to be called")
	if l != la {
		t.Fatal("listener got another lease")
	}
	mustRelease(t, l)
	lb := mustAcquire(t, mustMutex(t, fb, p), 10*time.Second)
	mustRelease(t, lb)
	if err := recipes.Revoke(ctxFor(t, 5*time.Second), fb, parts[0].Path); err != nil {
		t.Fatalf("revoking a gone node: %v", err)
	}
}

// Curator's testContainerCleanup: once the last contender is gone the server
// reaps the whole lock path.
func TestMutexContainerCleanup(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	parent := lockPath(t)
	p := parent + "/a/b"
	mustRelease(t, mustAcquire(t, mustMutex(t, fw, p), 10*time.Second))
	zktest.Eventually(t, 20*time.Second, "the lock path to be reaped", func() bool {
		st, err := fw.Exists(ctxFor(t, 5*time.Second), parent)
		return err == nil && st == nil
	})
}

func TestMutexNamespace(t *testing.T) {
	zk := shared
	ns := path.Base(lockPath(t))
	fw := zktest.Connect(t, zk, framework.WithNamespace(ns))
	raw := zktest.Connect(t, zk)
	l := mustAcquire(t, mustMutex(t, fw, "/lock"), 10*time.Second)
	if kids := zktest.Children(t, raw, "/"+ns+"/lock"); len(kids) != 1 || "/lock/"+kids[0] != l.Path() {
		t.Fatalf("namespaced node: %v, lease path %s", kids, l.Path())
	}
	mustRelease(t, l)
}

// The fencing token is our node's czxid, whether it came for free from the
// listing behind the create or from a stat read (contended creates).
func TestMutexTokenIsCzxid(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fws := []*framework.Framework{zktest.Connect(t, zk), zktest.Connect(t, zk), zktest.Connect(t, zk)}
	check := func(l *recipes.Lease, fw *framework.Framework) {
		t.Helper()
		st, err := fw.Exists(ctxFor(t, 5*time.Second), l.Path())
		if err != nil || st == nil {
			t.Fatalf("stat of %s: %v", l.Path(), err)
		}
		if tok(t, l) != st.Czxid {
			t.Fatalf("token %d, czxid %d", tok(t, l), st.Czxid)
		}
	}
	m := mustMutex(t, fws[0], p)
	for i := 0; i < 5; i++ { // uncontended: the free path
		l := mustAcquire(t, m, 10*time.Second)
		check(l, fws[0])
		mustRelease(t, l)
	}
	done := make(chan struct{})
	for _, fw := range fws { // contended: creates race, some take the stat path
		m := mustMutex(t, fw, p)
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 10; i++ {
				l, err := m.Acquire(ctxFor(t, 30*time.Second))
				if err != nil {
					t.Errorf("Acquire: %v", err)
					return
				}
				st, err := fw.Exists(ctxFor(t, 5*time.Second), l.Path())
				if err != nil || st == nil || st.Czxid != tok(t, l) {
					t.Errorf("token %d, stat %+v, err %v", tok(t, l), st, err)
				}
				l.Release(context.Background())
			}
		}()
	}
	for range fws {
		receive(t, done, "a worker to finish")
	}
}
