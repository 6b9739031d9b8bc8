package recipes_test

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/retry"
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
	ended := syncLockAsync(t, m)
	const window = 2 * time.Second
	before := fw.RequestsStarted()
	time.Sleep(window) // the measured window: requests are counted over a fixed time
	sent := fw.RequestsStarted() - before
	fw.Close()
	lockPanicked(t, ended, "Lock to end after the framework closed")
	// The default policy (ExponentialBackoff(100ms, 3)) pauses at least 100 ms between tries
	// of ~3 requests each (create, list, delete): at most ~60 in the window.
	if sent > 150 {
		t.Fatalf("%d requests in %v: Lock retries a permanent error without pausing", sent, window)
	}
	t.Logf("%d requests in %v", sent, window)
}

// SyncLocker.Lock has no ctx: its pause between tries must still end when the framework
// closes, so that Lock panics (its documented end) promptly after Close, not after the pause.
// The policy pauses 30 s; Close comes while Lock pauses (seen through its Warn log, an event).
// On the code before this test Lock slept the whole pause with time.Sleep and ended 30 s late.
func TestSyncLockerPauseEndsAtClose(t *testing.T) {
	const pause = 30 * time.Second
	zk := shared
	paused := newLogSignal("SyncLocker.Lock: acquire failed")
	fw := zktest.Connect(t, zk, framework.WithRetryPolicy(retry.NTimes(1, pause)), framework.WithLogger(slog.New(paused)))
	m := mustMutex(t, fw, lockPath(t), recipes.WithListingLimit(1)) // every acquire fails: ErrQueueTooDeep
	ended := syncLockAsync(t, m)
	zktest.Receive(t, paused.ch, 10*time.Second, "Lock to fail an acquire and pause")
	fw.Close()
	closed := time.Now()
	r := lockPanicked(t, ended, "Lock to end after Close (its pause: "+pause.String()+")")
	if d := time.Since(closed); d > 2*time.Second {
		t.Errorf("Lock panicked %v after Close, want promptly", d)
	}
	t.Logf("Lock ended %v after Close: %v", time.Since(closed), r)
}

// syncLockAsync calls Lock of a SyncLocker on m's lock in the background; the channel gets what
// Lock's panic carried (it panics once the framework is closed), or nil when Lock returned.
func syncLockAsync(t *testing.T, m *recipes.InterProcessMutex) <-chan any {
	t.Helper()
	sl, err := recipes.NewSyncLocker(m.Lock)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan any, 1)
	go func() {
		defer func() { ended <- recover() }()
		sl.Lock()
	}()
	return ended
}

// lockPanicked waits up to 10 s for the background Lock to end (what names that end) and fails
// the test unless it panicked; it returns what the panic carried.
func lockPanicked(t *testing.T, ended <-chan any, what string) any {
	t.Helper()
	r := zktest.Receive(t, ended, 10*time.Second, what)
	if r == nil {
		t.Fatal("Lock returned without the lock and without a panic")
	}
	return r
}

// logSignal is a slog.Handler that closes ch when a record at Warn or above whose message
// contains msg is logged.
type logSignal struct {
	msg  string
	once sync.Once
	ch   chan struct{}
}

func newLogSignal(msg string) *logSignal { return &logSignal{msg: msg, ch: make(chan struct{})} }

func (h *logSignal) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *logSignal) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *logSignal) WithGroup(string) slog.Handler                { return h }
func (h *logSignal) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.msg) {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}

// Each shared-count semaphore object read the count with a watch and kept a goroutine on that
// watch until the count changed: 500 objects on one count node, 500 goroutines, though the
// framework shares the one watch between them. The goroutine count must stay bounded by a
// constant, and a waiter must still be woken when the count changes.
func TestSharedSemaphoreObjectsKeepNoGoroutineEach(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	count := sharedCountNode(t, fw, p, 1)
	newSem := func() *recipes.InterProcessSemaphoreV2 { return mustSharedSemaphore(t, fw, p, count) }
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

	raisingTheCountWakesAWaiter(t, fw, p, count, newSem(), newSem())
}

// A write Acquire whose create landed in a session that then expired, before the listing
// sent behind the create was answered, gave up with "… missing from its parent's listing
// right after its create: zk: node does not exist", long before its deadline. Its node being
// gone is the case the loop exists for: it must queue again with a new node.
func TestAcquireRequeuesWhenTheSessionExpiresBetweenCreateAndListing(t *testing.T) {
	zk := shared
	proxy, fa, fb := directAndProxied(t, framework.WithSessionTimeout(20*time.Second))
	p := lockPath(t)
	la := mustLease(t, mustRW(t, fa, p).WriteLock(), ctxFor(t, 10*time.Second)) // keeps the directory
	id, pw := proxy.Session()

	// The listing's reply is swallowed and the connection cut: the create's reply, sent before
	// it, has arrived. go-zookeeper waits a second before it dials its only server again;
	// the session is expired in that second, so the listing is retried in a new session.
	proxy.CutReplyAfter(zktest.OpGetChildren2)
	type result struct {
		l   *recipes.Lease
		err error
	}
	got := make(chan result, 1)
	go func() {
		l, err := mustRW(t, fb, p).WriteLock().Acquire(ctxFor(t, 60*time.Second))
		got <- result{l, err}
	}()
	zktest.Eventually(t, 20*time.Second, "the listing behind the create to be cut", func() bool {
		return proxy.Requests()[zktest.OpGetChildren2] >= 1 && !fb.State().IsConnected()
	})
	expireSession(t, zk, id, pw)
	zktest.Eventually(t, 20*time.Second, "a new session", func() bool {
		s := fb.SessionID()
		return s != 0 && s != id
	})
	select {
	case r := <-got:
		t.Fatalf("Acquire ended while the lock was held: lease %v, err %v (want it queued again)", r.l, r.err)
	case <-time.After(time.Second):
	}
	mustRelease(t, la)
	r := zktest.Receive(t, got, 30*time.Second, "a grant after the holder released")
	if r.err != nil {
		t.Fatalf("Acquire: %v, want it queued again after its node vanished", r.err)
	}
	st, err := fa.Exists(ctxFor(t, 10*time.Second), r.l.Path())
	if err != nil || st == nil || st.EphemeralOwner != fb.SessionID() {
		t.Fatalf("granted on %s: stat %+v (%v), want a node of the current session 0x%x", r.l.Path(), st, err, fb.SessionID())
	}
	mustRelease(t, r.l)
}
