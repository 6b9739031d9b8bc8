package recipes_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A lease's deadline runs on the session timeout the server negotiated, not on the one the
// client asked for, whatever go-zookeeper logger the client uses: on a server whose minimum
// session timeout (2 s) is above the 1 s asked, an idle lease on a healthy connection stays
// held for several timeouts (go-zookeeper pings every third of the negotiated 2 s; the
// deadline is 2/3 of it). Before, with go-zookeeper's log line silenced, the deadline was 2/3
// of the 1 s asked, no longer than the gap between two pings, and the idle lease was lost.
func TestIdleLeaseOnNegotiatedTimeout(t *testing.T) {
	const forced = 2 * time.Second
	srv := zktest.Start(t, zktest.WithSessionTimeouts(forced, forced))
	fw := zktest.Connect(t, srv, framework.WithSessionTimeout(time.Second),
		framework.WithZKOptions(zk.WithLogInfo(false)))
	if got := fw.SessionTimeout(); got != forced {
		t.Fatalf("SessionTimeout = %v, want the server's %v", got, forced)
	}
	lease := mustAcquire(t, mustMutex(t, fw, lockPath(t)), 10*time.Second)
	quiet := time.After(3 * forced) // a bounded wait that asserts nothing happened
	tick := time.NewTicker(forced / 20)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-quiet:
			waiting = false
		case <-lease.Done():
			t.Fatalf("idle lease lost on a healthy connection: %v", lease.Err())
		case <-tick.C:
			if err := lease.Err(); err != nil {
				t.Fatalf("idle lease Err on a healthy connection: %v", err)
			}
		}
	}
	mustRelease(t, lease)
}
