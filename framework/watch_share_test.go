package framework_test

import (
	"context"
	"errors"
	"fmt"
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

// Sharing never hides a change: many goroutines read with GetW and wait (some giving up early)
// while the node changes and the connection drops; whenever a wait ends without an event or an
// interruption, the node must still be at the version that goroutine read.
func TestSharedWatchesMissNoChange(t *testing.T) {
	f, p, _ := proxied(t)
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 6; g++ {
		go func() { errs <- watchLoop(ctx, f, node, g, stop) }()
	}
	for i := 0; i < 60; i++ {
		if _, err := f.Set(ctx, node, []byte{byte(i)}, -1); err != nil {
			t.Fatal(err)
		}
		if i%20 == 10 {
			p.DropConnections()
		}
		time.Sleep(5 * time.Millisecond) // pacing the writer: let the readers interleave
	}
	close(stop)
	for g := 0; g < 6; g++ {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(bound):
			t.Fatal("a reader did not stop")
		}
	}
}

// watchLoop reads and waits until stop; it reports a wait that timed out although the node had
// changed since the read.
func watchLoop(ctx context.Context, f *framework.Framework, node string, g int, stop <-chan struct{}) error {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		default:
		}
		_, stat, w, err := f.GetW(ctx, node)
		if err != nil {
			continue // a dropped connection: read again
		}
		patience := 2 * time.Second
		if (g+i)%3 == 0 {
			patience = time.Millisecond // gives up at once: leaves the watch to the sharers
		}
		wctx, cancel := context.WithTimeout(ctx, patience)
		_, err = w.Wait(wctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || patience < time.Second {
			continue
		}
		now, err := f.Exists(ctx, node)
		if err != nil || now.Version == stat.Version {
			continue
		}
		// The node changed: its event may just be late (it raced the deadline); give it time.
		wctx, cancel = context.WithTimeout(ctx, bound/2)
		_, err = w.Wait(wctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("reader %d: waited %v at version %d while the node went to %d", g, patience, stat.Version, now.Version)
		}
	}
}
