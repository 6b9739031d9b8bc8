package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/watchmgr"
)

// waitServerWatches waits until the shared server holds want watches.
func waitServerWatches(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		n, err := shared.Member(0).WatchCount(testCtx(t))
		if err == nil && n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server watches %d (%v), want %d", n, err, want)
		}
		time.Sleep(20 * time.Millisecond) // polling the server's count: there is no event to await
	}
}

// Waiters that give up, and re-reads after an interruption, share the one go-zookeeper watch of
// their (kind, path) instead of piling up new ones; a reconnect keeps the sharing; a change wakes
// every sharer; after an expiry a new watch is registered.
func TestWatchesAreSharedPerKindAndPath(t *testing.T) {
	f, p, s := proxied(t, framework.WithErrorPolicy(framework.SessionPolicy))
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	serverBefore, err := shared.Member(0).WatchCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	abandoned, cancel := context.WithCancel(ctx)
	cancel()
	var sharers []*watchmgr.Watch
	for i := 0; i < 1000; i++ {
		_, _, w, err := f.GetW(ctx, node)
		if err != nil {
			t.Fatal(err)
		}
		w.Wait(abandoned) // the waiter gives up at once
		if i%250 == 0 {
			sharers = append(sharers, w)
		}
	}
	if n := f.Watches(); n != 1 {
		t.Fatalf("Watches = %d after 1,000 GetW on an unchanged node, want 1", n)
	}
	waitServerWatches(t, serverBefore+1)

	p.DropConnections()
	s.expect(t, framework.Suspended, framework.Reconnected)
	_, _, w, err := f.GetW(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Interrupted():
		t.Fatal("a watch shared after the reconnect reports the earlier interruption")
	default:
	}
	select {
	case <-sharers[0].Interrupted():
	default:
		t.Fatal("a watch set before the disconnect was not interrupted")
	}
	sharers = append(sharers, w)
	if n := f.Watches(); n != 1 {
		t.Fatalf("Watches = %d after a reconnect, want 1", n)
	}

	if _, err := f.Set(ctx, node, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	for i, w := range sharers {
		select {
		case ev := <-w.Events():
			if ev.Type != zk.EventNodeDataChanged {
				t.Fatalf("sharer %d: Events = %v", i, ev)
			}
		case <-time.After(bound):
			t.Fatalf("sharer %d: no event", i)
		}
		expectEvent(t, w, zk.EventNodeDataChanged)
	}
	if n := f.Watches(); n != 0 {
		t.Fatalf("Watches = %d after the change, want 0", n)
	}
	waitServerWatches(t, serverBefore)

	if _, _, _, err := f.GetW(ctx, node); err != nil {
		t.Fatal(err)
	}
	waitServerWatches(t, serverBefore+1)
	expire(t, p)
	s.expect(t, framework.Suspended, framework.Lost, framework.Reconnected)
	waitServerWatches(t, serverBefore)
	_, _, w, err = f.GetW(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	waitServerWatches(t, serverBefore+1) // registered anew in the new session, not shared
	if _, err := f.Set(ctx, node, []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	expectEvent(t, w, zk.EventNodeDataChanged)
}
