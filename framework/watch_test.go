package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/watchmgr"
)

func TestWatchesFireAndCountsReturnToZero(t *testing.T) {
	srv := shared.Member(0)
	f := newFW(t, nil)
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	serverBefore, err := srv.WatchCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _, wData, err := f.GetW(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	_, _, wKids, err := f.ChildrenW(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	stat, wMissing, err := f.ExistsW(ctx, node+"/child")
	if err != nil || stat != nil {
		t.Fatalf("ExistsW missing = %v, %v", stat, err)
	}
	if _, _, _, err := f.GetW(ctx, node+"/absent"); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("GetW absent = %v", err)
	}
	if n := f.Watches(); n != 3 {
		t.Fatalf("Watches = %d, want 3", n)
	}
	if _, err := f.Create(ctx, node+"/child", nil); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, wKids, zk.EventNodeChildrenChanged)
	expectEvent(t, wMissing, zk.EventNodeCreated)
	if _, err := f.Set(ctx, node, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, wData, zk.EventNodeDataChanged)
	if n := f.Watches(); n != 0 {
		t.Fatalf("Watches = %d after all fired, want 0", n)
	}
	deadline := time.Now().Add(bound)
	for {
		n, err := srv.WatchCount(ctx)
		if err == nil && n <= serverBefore {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server watches %d (%v), want <= %d", n, err, serverBefore)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func expectEvent(t *testing.T, w *watchmgr.Watch, typ zk.EventType) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	ev, err := w.Wait(ctx)
	if err != nil || ev.Type != typ {
		t.Fatalf("watch on %s: %v, %v; want %v", w.Path(), ev.Type, err, typ)
	}
}

func TestWatchInterruptedBySuspendAndInvalidatedByExpiry(t *testing.T) {
	f, p, s := proxied(t)
	ctx := testCtx(t)
	w := watchNewNode(t, ctx, f)
	p.DropConnections()
	if _, err := w.Wait(ctx); !errors.Is(err, watchmgr.ErrSessionInterrupted) {
		t.Fatalf("Wait across a disconnect = %v", err)
	}
	s.expect(t, framework.Suspended, framework.Reconnected)
	if f.Watches() != 1 {
		t.Fatalf("Watches = %d after reconnect, want 1 (kept by go-zookeeper)", f.Watches())
	}
	expire(t, p)
	deadline := time.Now().Add(bound)
	for f.Watches() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("Watches = %d after expiry", f.Watches())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWatchOpsAreCountedAfterClose(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	w := watchNewNode(t, ctx, f)
	f.Close()
	if _, err := w.Wait(ctx); !errors.Is(err, watchmgr.ErrSessionInterrupted) {
		t.Fatalf("Wait after Close = %v", err)
	}
	if f.Watches() != 0 {
		t.Fatalf("Watches = %d after Close", f.Watches())
	}
}

// watchNewNode creates a node of its own through f and returns a data watch set on it.
func watchNewNode(t *testing.T, ctx context.Context, f *framework.Framework) *watchmgr.Watch {
	t.Helper()
	node := uniquePath(t)
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	_, _, w, err := f.GetW(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
