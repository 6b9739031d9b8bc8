package recipes_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 28: under SessionPolicy a connection blip keeps the session and the idle node: the first
// Acquire after the reconnect lists the directory afresh (one read, ordered after the watches
// go-zookeeper re-sent) and, nobody having queued, re-grants the same node locally. Under
// StandardPolicy the blip ends the epoch, and with it the idle node.
func TestStickyIdleNodeAcrossABlip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy framework.ErrorPolicy
		kept   bool
	}{
		{"session policy", framework.SessionPolicy, true},
		{"standard policy", framework.StandardPolicy, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, shared.Servers()[0])
			fw := zktest.Connect(t, shared, framework.WithDialer(proxy.Dialer()), framework.WithErrorPolicy(tc.policy))
			p := lockPath(t)
			m := stickyMutex(t, fw, p, time.Minute)
			node, _ := idleOnce(t, m)
			before := fw.Session()
			reconnected := zktest.StateSignal(t, fw, framework.Reconnected)
			proxy.ResetCounts()
			proxy.DropConnections()
			receive(t, reconnected, "the reconnect")
			if fw.SessionID() != before.ID() {
				t.Fatal("the blip lost the session")
			}
			l := mustAcquire(t, m, 20*time.Second)
			if kept := l.Path() == node; kept != tc.kept {
				t.Fatalf("after the blip got %s (idle node %s): kept %v, want %v", l.Path(), node, kept, tc.kept)
			}
			if n := proxy.Requests()[zktest.OpGetChildren2]; tc.kept && n != 1 {
				t.Fatalf("the re-grant after the blip made %d listings, want 1 (a fresh one)", n)
			}
			mustRelease(t, l)
			if err := m.Close(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			zktest.Eventually(t, 10*time.Second, "the directory to empty", func() bool {
				return len(zktest.Children(t, fw, p)) == 0
			})
		})
	}
}
