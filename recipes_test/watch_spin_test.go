package recipes_test

import (
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 25.4: another client removed READ from a revocable holder's node; after its next
// reconnect the revocation watch re-read it at ~2,670 requests/s for the life of the lease and
// said so only at debug level. It must back off under the retry policy and warn, once, that it
// cannot watch. The bound checked
// (under 40 reads in 2 s) is 100 times below the spin; load can only lower the count.
func TestRevocationWatchBacksOffWhenUnreadable(t *testing.T) {
	zk := shared
	logs := &zktest.LogBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var reads atomic.Int64 // reads of the node that failed
	watching := make(chan struct{}, 100)
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	fw := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second),
		framework.WithErrorPolicy(framework.SessionPolicy), framework.WithLogger(log), framework.WithTracer(func(tr framework.Trace) {
			log.Debug("trace", "kind", tr.Kind, "name", tr.Name, "path", tr.Path, "err", tr.Err)
			if tr.Kind == framework.TraceOperation && tr.Err == nil && tr.Name == "getDataW" {
				select {
				case watching <- struct{}{}:
				default:
				}
			}
			if tr.Kind == framework.TraceOperation && tr.Err != nil && strings.HasPrefix(tr.Name, "getData") {
				reads.Add(1)
			}
		}))
	other := zktest.Connect(t, zk)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("holder's log:\n%s", logs)
		}
	})
	p := lockPath(t)
	l := mustAcquire(t, mustMutex(t, fw, p, recipes.WithRevocation(func(*recipes.Lease) {})), 10*time.Second)
	defer mustRelease(t, l)
	zktest.Receive(t, watching, 10*time.Second, "the revocation watch to be set")
	if _, err := other.SetACL(ctxFor(t, 5*time.Second), l.Path(), framework.WorldACL(framework.PermAll&^framework.PermRead), -1); err != nil {
		t.Fatal(err)
	}
	// ZooKeeper does not tell a watcher without READ that the node changed: the holder reads its
	// node again after a reconnect (its watch wakes, interrupted), as after any connection loss.
	proxy.DropConnections()
	zktest.Eventually(t, 10*time.Second, "a warning that revocation cannot be watched", func() bool {
		return logs.Contains("level=WARN msg=\"recipes: cannot watch")
	})
	before := reads.Load()
	time.Sleep(2 * time.Second) // a measurement window, not a synchronisation
	after := logs.String()
	if n := reads.Load() - before; n >= 40 {
		t.Fatalf("%d reads of the unreadable node in 2 s: the watch spins", n)
	}
	// Each watch loop on the node (revocation, and the lease's own-node watch) warns once.
	for what, want := range map[string][2]int{"for revocation": {1, 1}, "for its deletion": {0, 1}} {
		if n := strings.Count(after, "cannot watch the lease's node "+what); n < want[0] || n > want[1] {
			t.Fatalf("%d warnings that it cannot watch %s, want %d to %d:\n%s", n, what, want[0], want[1], after)
		}
	}
}
