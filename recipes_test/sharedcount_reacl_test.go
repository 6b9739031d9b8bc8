package recipes_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 25.4 for the SharedCount's watch loop: another client removes READ from the count's
// node, the started count's connection blips, and its reads fail with NoAuth. The loop must
// keep trying at the retry policy's pace while the connection stays healthy, so that once READ
// is given back the count follows the node again. On the old code it tried again only at the
// next connection state change: after at most three failed reads it stopped, and the count stayed
// stale for ever on a healthy connection.
func TestSharedCountWatchResumesAfterReACL(t *testing.T) {
	zk := shared
	p := lockPath(t) + "/count"
	var failed atomic.Int64 // the count's reads of p that failed
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	fw := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second),
		framework.WithErrorPolicy(framework.SessionPolicy), framework.WithTracer(func(tr framework.Trace) {
			if tr.Kind == framework.TraceOperation && tr.Err != nil && tr.Name == "getDataW" && tr.Path == p {
				failed.Add(1)
			}
		}))
	other := zktest.Connect(t, zk)
	t.Cleanup(func() { other.Delete(context.Background(), p) })
	c := mustSharedCount(t, fw, p)
	if err := c.Set(ctxFor(t, 5*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := other.SetACL(ctxFor(t, 5*time.Second), p, framework.WorldACL(framework.PermAll&^framework.PermRead), -1); err != nil {
		t.Fatal(err)
	}
	sid := fw.SessionID()
	proxy.DropConnections() // the watch wakes, interrupted, and the reads fail with NoAuth
	zktest.Eventually(t, 20*time.Second, "the count's client to reconnect", func() bool {
		return fw.State().IsConnected() && fw.SessionID() == sid
	})
	// The old loop read at most three times: once when its watch woke, and once for each of the
	// blip's two connection states. Only a loop that keeps trying fails a fourth time.
	zktest.Eventually(t, 10*time.Second, "four failed reads of the count", func() bool { return failed.Load() >= 4 })
	if _, err := other.SetACL(ctxFor(t, 5*time.Second), p, framework.WorldACL(framework.PermAll), -1); err != nil {
		t.Fatal(err)
	}
	if err := mustSharedCount(t, other, p).Set(ctxFor(t, 5*time.Second), 42); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "the started count to see 42", func() bool { return c.Count() == 42 })
}
