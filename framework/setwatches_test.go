package framework_test

import (
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A watch that go-zookeeper has set but the framework has not counted yet (the watching read's
// reply is in, its Track has not run) when the connection drops: go-zookeeper re-sends it on
// the next connection, so the disconnect must arm the setWatches gate, and the reconnect must
// not open it before the setWatches is written. Else a request could be answered before
// go-zookeeper reads lastZxid for the setWatches, and a change made meanwhile would never be
// notified. The watch must still see a change made while the connection was down.
func TestUncountedWatchArmsTheSetWatchesGate(t *testing.T) {
	f, p, _ := proxied(t)
	other := newFW(t, nil)
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	replied, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer framework.SetWatchHook(f, func() {
		once.Do(func() {
			close(replied)
			<-release
		})
	})()
	defer once.Do(func() {}) // a failed test does not leave the hook waiting
	type result struct {
		w   *framework.Watch
		err error
	}
	got := make(chan result, 1)
	go func() {
		_, _, w, err := f.GetW(ctx, node)
		got <- result{w, err}
	}()
	select {
	case <-replied:
	case <-time.After(bound):
		t.Fatal("GetW's reply never came")
	}
	suspended := make(chan struct{}, 1)
	defer f.AddListener(func(s framework.ConnectionState) {
		if s == framework.Suspended {
			select {
			case suspended <- struct{}{}:
			default:
			}
		}
	})()
	p.DropConnections()
	select { // listeners hear Suspended after the Disconnected callback has run
	case <-suspended:
	case <-time.After(bound):
		t.Fatal("no disconnect")
	}
	armed := framework.SetWatchesGateArmed(f)
	if _, err := other.Set(ctx, node, []byte("changed while down"), -1); err != nil {
		t.Fatal(err)
	}
	close(release)
	if !armed {
		t.Fatal("a disconnect with a watch set but not yet counted left the setWatches gate open")
	}
	var r result
	select {
	case r = <-got:
	case <-time.After(bound):
		t.Fatal("GetW never returned")
	}
	if r.err != nil {
		t.Fatalf("GetW: %v", r.err)
	}
	select { // Events outlives the interruption: the watch is still set on the server
	case ev := <-r.w.Events():
		if ev.Type != framework.EventNodeDataChanged {
			t.Fatalf("event %v (%v), want the data change made while the connection was down", ev.Type, ev.Err)
		}
	case <-time.After(bound):
		t.Fatal("the change made while the connection was down was never notified")
	}
}
