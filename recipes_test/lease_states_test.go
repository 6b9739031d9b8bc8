package recipes_test

import (
	"errors"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// What a lease promises after Suspended, Reconnected and Lost under each error policy: the
// rows of docs/safety.md's table. Each case holds a lock through a proxy, injects the
// fault, and checks the lease (Done, Err, Reenter, Guard) and the node.
func TestLeaseUnderConnectionStates(t *testing.T) {
	tests := []struct {
		name   string
		policy framework.ErrorPolicy
		fault  string // "drop": Suspended then Reconnected on the same session; "expire": Lost
		ended  bool   // Done closed after the fault
		reason error  // what Err wraps besides ErrLockLost: the first sign of trouble
		node   bool   // our node still exists once the client is connected again
	}{
		// Told, but the node stays until Release (or the loss grace): nothing is handed over.
		{"standard/suspended-reconnected", framework.StandardPolicy, "drop", true, framework.ErrSuspended, true},
		// The server closes the expired session's connection: Suspended comes first.
		{"standard/lost", framework.StandardPolicy, "expire", true, framework.ErrSuspended, false},
		{"session/suspended-reconnected", framework.SessionPolicy, "drop", false, nil, true},
		{"session/lost", framework.SessionPolicy, "expire", true, framework.ErrSessionLost, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zk := shared
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			p := lockPath(t)
			fw := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()),
				framework.WithSessionTimeout(20*time.Second), framework.WithErrorPolicy(tt.policy))
			observer := zktest.Connect(t, zk)
			l := mustAcquire(t, mustMutex(t, fw, p), 10*time.Second)
			sid := fw.SessionID()
			switch tt.fault {
			case "drop":
				proxy.DropConnections()
				zktest.Eventually(t, 20*time.Second, "Reconnected", func() bool {
					return fw.State() == framework.Reconnected && fw.SessionID() == sid
				})
			case "expire":
				id, pw := proxy.Session()
				expireSession(t, zk, id, pw)
				zktest.Eventually(t, 20*time.Second, "a new session", func() bool {
					return fw.State().IsConnected() && fw.SessionID() != sid
				})
			}
			if tt.ended {
				zktest.Receive(t, l.Done(), 10*time.Second, "Done to close")
				if !errors.Is(l.Err(), recipes.ErrLockLost) || !errors.Is(l.Err(), tt.reason) {
					t.Fatalf("Err = %v, want ErrLockLost wrapping %v", l.Err(), tt.reason)
				}
				if err := l.Reenter(); err == nil {
					t.Fatal("Reenter of a lost lease succeeded")
				}
			} else if l.Err() != nil {
				t.Fatalf("lease ended: %v", l.Err())
			}
			name := path.Base(l.Path())
			if tt.node {
				if !slices.Contains(zktest.Children(t, observer, p), name) {
					t.Fatal("our node is gone although the lease was not released")
				}
				if _, err := fw.Multi(ctxFor(t, 10*time.Second), l.Guard(), framework.SetOp(p, []byte("x"), -1)); err != nil {
					t.Fatalf("guarded write while our node exists: %v", err)
				}
			} else {
				zktest.Eventually(t, lossDeleteBound, "the lost lease's node to go", func() bool {
					return !slices.Contains(zktest.Children(t, observer, p), name)
				})
				if _, err := fw.Multi(ctxFor(t, 10*time.Second), l.Guard(), framework.SetOp(p, []byte("x"), -1)); err == nil {
					t.Fatal("guarded write by a lost lease committed")
				}
			}
			if err := l.Release(ctxFor(t, 10*time.Second)); err != nil {
				t.Fatalf("Release: %v", err)
			}
			zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, observer, p)) == 0 })
		})
	}
}
