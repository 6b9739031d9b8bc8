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

// TestStickyVisitReleasesPlain: a sticky lock granted after queueing behind another process's
// node (here its owner's idle one: a visit, issue 28's s2), on a lock that has not shown that it
// re-uses such grants, does not cache that node: the visitor's Release deletes it at once (in the background: the test waits for that), and
// the owner's next Acquire is a plain one (it queues behind nothing), not a handover that waits
// for the visitor's delete. A grant that did not queue is cached as before.
func TestStickyVisitReleasesPlain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ownerFirst bool // the owner took the lock first (its node idle when the visitor comes)
		wantKids   int  // children right after the visitor's Release
	}{
		{"visit of an idle node", true, 0},
		{"first use of a free lock caches", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := newVisitScene(t, framework.TraceLock, "queued", "/sticky-visit")
			var owner *recipes.InterProcessMutex
			if tc.ownerFirst {
				owner, _ = stickyIdle(t, sc.fa, sc.p)
				defer owner.Close(testCtx(t, 10*time.Second))
			}
			visitor, err := recipes.NewMutex(sc.fb, sc.p, recipes.WithSticky(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			defer visitor.Close(testCtx(t, 10*time.Second))
			l, err := acquireVisit(t, visitor, sc.fb, tc.ownerFirst)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			recipes.FlushStickyStale(testCtx(t, 10*time.Second), visitor.Lock) // a visit's delete runs in the background
			if kids := childrenOrNone(t, sc.fb, sc.p); len(kids) != tc.wantKids {
				t.Fatalf("after the visitor's release: children %v, want %d", kids, tc.wantKids)
			}
			if !tc.ownerFirst {
				return
			}
			if n := sc.ownerReturns(t, owner); n != 0 {
				t.Fatalf("the owner's acquire after the visit queued %d times, want a plain grant", n)
			}
		})
	}
}

// TestStickyMigratingLockLearnsVisits: issue 28's s3 pattern, a lock that migrates between two
// processes in turns of several acquisitions. A process's first turn that starts with a grant
// that queued behind the other's idle node does not cache it (the lock has not shown yet that it
// re-uses such grants), and its next acquisition takes the lock again before anyone else does,
// which teaches the lock that it does; from its next turn on, the turn's first grant is cached
// and every later acquisition of the turn is local, as for a lock that never met the visit rule.
// (When the other's idle node goes between our create and our listing, the grant did not queue
// and is cached as any plain one: that turn is local too, and the learning comes a turn later;
// the test gives each process four turns and checks the last.)
func TestStickyMigratingLockLearnsVisits(t *testing.T) {
	const turns, perTurn = 8, 3
	p := zktest.UniquePath(t, "/sticky-migrate")
	var ms [2]*recipes.InterProcessMutex
	for i := range ms {
		m, err := recipes.NewMutex(testFramework(t), p, recipes.WithSticky(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(testCtx(t, 10*time.Second))
		ms[i] = m
	}
	for turn := range turns {
		m := ms[turn%2]
		var local []bool
		for range perTurn {
			local = append(local, acquireLocal(t, m.Lock))
		}
		t.Logf("turn %d (process %d): local %v", turn, turn%2, local)
		if turn < turns-2 { // each process's last turn must be local after its first acquisition
			continue
		}
		for k, ok := range local[1:] {
			if !ok {
				t.Fatalf("turn %d (process %d's turn %d): acquisition %d was not local (%v), want every one after the first",
					turn, turn%2, turn/2+1, k+2, local)
			}
		}
	}
}

// acquireLocal takes and releases l once and reports whether the grant was local (a re-grant of
// the slot that stood before the call, read through the test hook).
func acquireLocal(t *testing.T, l *recipes.Lock) bool {
	t.Helper()
	slot0, r0, _ := recipes.StickySnapshot(l)
	lease, err := l.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	slot1, r1, _ := recipes.StickySnapshot(l)
	if err := lease.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	return slot0 != nil && slot1 == slot0 && r1 == r0+1
}

// visitOnce makes sticky take the lock once by queueing behind plain's lease (a visit of a lock
// another process holds), and checks that the visit was not cached: the directory is empty
// after its release.
func visitOnce(t *testing.T, fw *framework.Framework, sticky, plain *recipes.InterProcessMutex) {
	t.Helper()
	lp, err := plain.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *recipes.Lease, 1)
	go func() {
		l, err := sticky.Acquire(testCtx(t, 20*time.Second))
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	zktest.Eventually(t, 10*time.Second, "the sticky lock to queue", func() bool {
		kids, _, err := fw.Children(testCtx(t, 10*time.Second), sticky.Path())
		return err == nil && len(kids) == 2
	})
	if err := lp.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	var l *recipes.Lease
	select {
	case l = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("no handoff")
	}
	if l == nil {
		t.FailNow()
	}
	if err := l.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	recipes.FlushStickyStale(testCtx(t, 10*time.Second), sticky.Lock) // a visit's delete runs in the background
	if kids := childrenOrNone(t, fw, sticky.Path()); len(kids) != 0 {
		t.Fatalf("after the visit's release: children %v, want none", kids)
	}
}

// childrenOrNone lists p's children; a directory already reaped (an emptied container) has none.
func childrenOrNone(t *testing.T, fw *framework.Framework, p string) []string {
	t.Helper()
	kids, _, err := fw.Children(testCtx(t, 10*time.Second), p)
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
	return kids
}

// acquireVisit acquires m. When behind is set (another process's idle node stands), the idle
// node's owner reacts to m's node only once m has listed and watches the node ahead: the
// owner's delete would otherwise sometimes land between m's create and its listing, and m's
// grant would be a plain one, not the visit the test is about.
func acquireVisit(t *testing.T, m *recipes.InterProcessMutex, fw *framework.Framework, behind bool) (*recipes.Lease, error) {
	t.Helper()
	if !behind {
		return m.Acquire(testCtx(t, 10*time.Second))
	}
	release := recipes.HoldStickyHandlers()
	defer release()
	type res struct {
		l   *recipes.Lease
		err error
	}
	got := make(chan res, 1)
	go func() {
		l, err := m.Acquire(testCtx(t, 10*time.Second))
		got <- res{l, err}
	}()
	zktest.Eventually(t, 10*time.Second, "the visitor to watch the idle node", func() bool { return fw.Watches() > 0 })
	release()
	r := zktest.Receive(t, got, 10*time.Second, "the visitor's grant")
	return r.l, r.err
}
