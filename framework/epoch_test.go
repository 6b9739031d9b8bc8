package framework_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The epoch of a session ends before any request can return in a later session, and (under
// StandardPolicy) before a request cut by a disconnect returns its connection loss: a request
// that fails or succeeds after the change must never see the old epoch still live. The state
// machine must not trail go-zookeeper, even when watchmgr's dispatcher is slow.
func TestEpochEndsBeforeRequestsOfTheNextSession(t *testing.T) {
	tests := []struct {
		name   string
		policy framework.ErrorPolicy
	}{
		{"standard", framework.StandardPolicy},
		{"session", framework.SessionPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate := newGatePolicy()
			f, p, _ := proxied(t, framework.WithRetryPolicy(gate), framework.WithErrorPolicy(tt.policy))
			defer openGate(gate)
			node := uniquePath(t)
			if _, err := f.Create(testCtx(t), node, nil); err != nil {
				t.Fatal(err)
			}
			defer framework.SlowDispatcher(f, 3*time.Second)()
			old := f.Session()
			oldID := f.SessionID()
			p.CutReplyAfter(zktest.OpGetData)
			type res struct {
				err  error
				live bool // the old epoch was still live when GetW returned
			}
			out := make(chan res, 1)
			go func() {
				_, _, _, err := f.GetW(testCtx(t), node)
				out <- res{err, old.Err() == nil}
			}()
			select {
			case <-gate.entered: // the GetW failed with a connection loss
			case <-time.After(bound):
				t.Fatal("the GetW's reply was never cut")
			}
			if tt.policy == framework.StandardPolicy && old.Err() == nil {
				t.Fatal("a request failed with a connection loss while its epoch was still live")
			}
			expire(t, p)
			waitSessionID(t, f, oldID)
			openGate(gate)
			var r res
			select {
			case r = <-out:
			case <-time.After(bound):
				t.Fatal("the retried GetW did not return")
			}
			if r.err != nil {
				t.Fatalf("GetW in the new session: %v", r.err)
			}
			if r.live {
				t.Fatal("a request of the new session returned while the old epoch was still live")
			}
			if !errors.Is(old.Err(), framework.ErrSessionLost) && !errors.Is(old.Err(), framework.ErrSuspended) {
				t.Fatalf("old epoch Err = %v", old.Err())
			}
		})
	}
}

func openGate(g gatePolicy) {
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// waitSessionID waits until go-zookeeper runs a session other than old, watching the connection
// alone (not the state machine, which the test means to outrun).
func waitSessionID(t *testing.T, f *framework.Framework, old int64) {
	t.Helper()
	deadline := time.After(bound)
	for f.SessionID() == old || f.SessionID() == 0 {
		select {
		case <-deadline:
			t.Fatalf("still in session 0x%x", old)
		case <-time.After(10 * time.Millisecond): // polling: go-zookeeper posts no event we may await here
		}
	}
}

// A waiter woken by a disconnect finds its epoch already ended (StandardPolicy), so that it never
// re-evaluates in an epoch that is about to end.
func TestEpochEndsBeforeWaitersWake(t *testing.T) {
	for i := 0; i < 5; i++ {
		f, p, s := proxied(t)
		node := uniquePath(t)
		if _, err := f.Create(testCtx(t), node, nil); err != nil {
			t.Fatal(err)
		}
		epoch := f.Session()
		_, _, w, err := f.GetW(testCtx(t), node)
		if err != nil {
			t.Fatal(err)
		}
		woke := make(chan error, 1)
		go func() {
			_, err := w.Wait(testCtx(t))
			if epoch.Err() == nil {
				err = errors.New("woken while the epoch was live")
			}
			woke <- err
		}()
		p.DropConnections()
		select {
		case err := <-woke:
			if !errors.Is(err, framework.ErrSessionInterrupted) {
				t.Fatalf("round %d: Wait = %v", i, err)
			}
		case <-time.After(bound):
			t.Fatal("waiter not woken by the disconnect")
		}
		s.expect(t, framework.Suspended, framework.Reconnected)
		f.Close()
	}
}
