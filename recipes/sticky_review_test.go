package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Review of issue 28's sticky leases: races between a local waiter, the holder's release and
// the lock's Close, which must neither lose the slot nor leak a lease, a node or a waiter.

// A local waiter whose ctx ends just as the holder's release hands the slot to it either gets
// the lease or gives it back (await: the handover and the removal from the queue are one
// decision under the cache's mutex): the lock is then held by no one in this process, and the
// slot is still kept, so the next TryAcquire re-grants the same node with no request.
func TestStickyHandoverWhileCtxEnds(t *testing.T) {
	fw := testFramework(t)
	p := "/sticky-review/" + t.Name()
	m, node := stickyIdle(t, fw, p)
	defer m.Close(testCtx(t, 10*time.Second))
	for i := range 20 {
		l, err := m.Acquire(testCtx(t, 10*time.Second))
		if err != nil || l.Path() != node {
			t.Fatalf("round %d: Acquire = %v, %v; want the idle node %s", i, l, err, node)
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan *recipes.Lease, 1)
		go func() {
			w, err := m.Acquire(ctx)
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("waiter: %v", err)
			}
			got <- w
		}()
		zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return recipes.StickyWaiters(m.Lock) == 1 })
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); cancel() }()
		go func() {
			defer wg.Done()
			if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		releaseGranted(t, got, 10*time.Second, fmt.Sprintf("round %d: the waiter hangs", i))
		if m.IsAcquiredInThisProcess() || recipes.StickyWaiters(m.Lock) != 0 {
			t.Fatalf("round %d: held %v, %d waiters; want neither", i, m.IsAcquiredInThisProcess(), recipes.StickyWaiters(m.Lock))
		}
		l2, err := m.TryAcquire(testCtx(t, 10*time.Second))
		if err != nil || l2.Path() != node {
			t.Fatalf("round %d: TryAcquire after the race = %v, %v; want the kept node %s", i, l2, err, node)
		}
		if err := l2.Release(testCtx(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
}

// Close racing with local holders and waiters: no two holders at once, every waiter is woken
// (it takes the normal way), and once the last lease is released nothing is left in the
// directory: a held slot ends at its release, and no lease granted after Close is kept.
func TestStickyCloseRacesAcquire(t *testing.T) {
	fw := testFramework(t)
	p := "/sticky-review/" + t.Name()
	m, _ := stickyIdle(t, fw, p)
	var g zktest.Gauge
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 10 {
				l, err := m.Acquire(testCtx(t, 20*time.Second))
				if err != nil {
					t.Error(err)
					return
				}
				g.Enter()
				runtime.Gosched()
				g.Leave()
				if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	close(start)
	if err := m.Close(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if g.Max() > 1 {
		t.Fatalf("%d holders at once", g.Max())
	}
	kids, _, err := fw.Children(testCtx(t, 10*time.Second), p)
	if err == nil && len(kids) != 0 {
		t.Fatalf("after Close and the last release the directory holds %v, want nothing", kids)
	}
}

// A sticky lease granted on a handoff (it waited behind another contender, so it watches its
// own node and the slot has no directory watch yet) that is lost because another client deleted
// its node ends the slot at once, as an ended epoch does: local waiters take the normal way and
// are granted as the waiters of a plain lock are, without waiting for the lost holder's release
// (which may never come: the loss grace exists for that), and a TryAcquire is not ErrSelfLocked.
// A grant that queued is cached only once the lock has shown that it re-uses such grants (the
// visit rule, sticky_visit.go): the lock learns it first, as a lock that migrates in turns does.
func TestStickyLostHandoffLeaseFreesItsWaiters(t *testing.T) {
	fa, fb := testFramework(t), testFramework(t)
	p := "/sticky-review/" + t.Name()
	a, err := recipes.NewMutex(fa, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(testCtx(t, 10*time.Second))
	b, err := recipes.NewMutex(fb, p)
	if err != nil {
		t.Fatal(err)
	}
	visitOnce(t, fb, a, b)  // a's grant queued behind b's lease: not cached, deleted at its release
	acquireLocal(t, a.Lock) // a takes the lock again before anyone else: its queued grants are cached from now on
	if slot, _, _ := recipes.StickySnapshot(a.Lock); slot == nil {
		t.Fatal("a's plain grant after the visit was not cached")
	}
	lb, err := b.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan *recipes.Lease, 1)
	go func() {
		l, err := a.Acquire(testCtx(t, 20*time.Second))
		if err != nil {
			t.Error(err)
		}
		first <- l
	}()
	zktest.Eventually(t, 10*time.Second, "fa to queue", func() bool {
		kids, _, err := fb.Children(testCtx(t, 10*time.Second), p)
		return err == nil && len(kids) == 2
	})
	if err := lb.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	var la *recipes.Lease
	select {
	case la = <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("no handoff")
	}
	if la == nil {
		t.FailNow()
	}
	waiter := make(chan error, 1)
	go func() {
		l, err := a.Acquire(testCtx(t, 10*time.Second))
		if err == nil {
			err = l.Release(testCtx(t, 10*time.Second))
		}
		waiter <- err
	}()
	zktest.Eventually(t, 10*time.Second, "the local waiter to queue", func() bool { return recipes.StickyWaiters(a.Lock) == 1 })
	if err := fb.Delete(testCtx(t, 10*time.Second), la.Path()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-la.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the lease was not told that its node was deleted")
	}
	select {
	case err := <-waiter:
		if err != nil {
			t.Fatalf("the local waiter: %v, want the lock", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the local waiter still waits for the lost holder's release")
	}
	if err := la.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}

// Under StandardPolicy a blip ends the idle node's epoch while its session lives on, so the node
// still stands after the reconnect. A TryAcquire that finds the slot so (its handlers held, as
// when the epoch's end has not been handled yet) must not fail on that node of ours, which no
// one holds: the node is deleted before the TryAcquire queues. Without the hold, the epoch's
// handler sent the node's delete to the background, where it waits for the retry policy's next
// round after the reconnect: the TryAcquire must not queue behind it either.
func TestStickyTryAcquireAfterABlipEndedTheEpoch(t *testing.T) {
	for _, held := range []bool{true, false} {
		t.Run(map[bool]string{true: "handlers held", false: "handlers run"}[held], func(t *testing.T) { tryAfterBlip(t, held) })
	}
}

func tryAfterBlip(t *testing.T, held bool) {
	proxy, fw := proxiedFramework(t, framework.WithErrorPolicy(framework.StandardPolicy))
	p := "/sticky-review/" + t.Name()
	m, node := stickyIdle(t, fw, p)
	defer m.Close(testCtx(t, 10*time.Second))
	before := fw.SessionID()
	release := func() {}
	if held {
		release = recipes.HoldStickyHandlers()
	}
	defer release()
	reconnected := zktest.StateSignal(t, fw, framework.Reconnected)
	proxy.DropConnections()
	select {
	case <-reconnected:
	case <-time.After(20 * time.Second):
		t.Fatal("no reconnect")
	}
	if fw.SessionID() != before {
		t.Skip("the blip lost the session")
	}
	l, err := m.TryAcquire(testCtx(t, 10*time.Second))
	release()
	if err != nil {
		t.Fatalf("TryAcquire after the blip (idle node %s, no holder): %v, want the lock", node, err)
	}
	if l.Path() == node {
		t.Fatalf("re-granted the node %s of an ended epoch", node)
	}
	if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}

// A cached read whose directory watch has fired (a writer queued) is not re-granted from the
// news alone, with its handlers held: a read's watch may fire for a reader, so the re-grant lists
// afresh, sees the writer, gives the node up and queues behind the writer (a TryAcquire is busy).
func TestStickyReadNotRegrantedOnceAWriterQueued(t *testing.T) {
	fa, fb := testFramework(t), testFramework(t)
	p := "/sticky-review/" + t.Name()
	rw, err := recipes.NewReadWriteLock(fa, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close(testCtx(t, 10*time.Second))
	r, err := rw.ReadLock().Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	node := r.Path()
	if err := r.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "the slot to be idle (its first listing decided)", func() bool { return recipes.StickyIdle(rw.ReadLock().Lock) })
	release := recipes.HoldStickyHandlers()
	defer release()
	wb, err := recipes.NewReadWriteLock(fb, p)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *recipes.Lease, 1)
	go func() {
		l, err := wb.WriteLock().Acquire(testCtx(t, 30*time.Second))
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	zktest.Eventually(t, 10*time.Second, "the writer to queue", func() bool {
		kids, _, err := fb.Children(testCtx(t, 10*time.Second), p)
		return err == nil && len(kids) == 2
	})
	readAfter(t, fa, p)
	l, err := rw.ReadLock().TryAcquire(testCtx(t, 10*time.Second))
	if err == nil {
		t.Fatalf("TryAcquire of the read got %s (cached %s) while a writer queued", l.Path(), node)
	}
	release()
	releaseGranted(t, got, 20*time.Second, "the writer never got the lock")
}

// releaseGranted waits up to d for the lease a background Acquire sends on got (nil when that
// Acquire ended without one) and releases it; it fails the test with hang when none comes.
func releaseGranted(t *testing.T, got <-chan *recipes.Lease, d time.Duration, hang string) {
	t.Helper()
	select {
	case w := <-got:
		if w != nil {
			if err := w.Release(testCtx(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
		}
	case <-time.After(d):
		t.Fatal(hang)
	}
}
