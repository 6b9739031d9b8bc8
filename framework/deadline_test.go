package framework_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// An epoch knows its own deadline: once the last read from the server is older than the point
// where the connection is given up, Session.Err reports it on the first call, synchronously,
// on a connection that go-zookeeper still holds (nothing else has happened to it), ends the
// epoch as a disconnect would (listeners see Suspended, or Lost under SessionPolicy), wakes the
// waiters, and cuts the connection so that go-zookeeper reconnects to the same session.
func TestSessionErrReportsSilencePastDeadline(t *testing.T) {
	tests := []struct {
		name   string
		policy framework.ErrorPolicy
		reason error
		states []framework.ConnectionState
	}{
		{"standard", framework.StandardPolicy, framework.ErrSuspended, []framework.ConnectionState{framework.Suspended}},
		{"session", framework.SessionPolicy, framework.ErrSessionLost, []framework.ConnectionState{framework.Suspended, framework.Lost}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const T = 4 * time.Second // proxied's session timeout
			f, _, s := proxied(t, framework.WithErrorPolicy(tt.policy), framework.WithSessionTimeout(T))
			node := uniquePath(t)
			if _, err := f.Create(testCtx(t), node, nil); err != nil {
				t.Fatal(err)
			}
			_, _, w, err := f.GetW(testCtx(t), node)
			if err != nil {
				t.Fatal(err)
			}
			epoch, id := f.Session(), f.SessionID()
			if err := epoch.Err(); err != nil {
				t.Fatalf("a fresh epoch: %v", err)
			}
			framework.SetSilence(f, T+time.Second) // past both deadlines (2/3 T and T)
			err = epoch.Err()
			if !errors.Is(err, tt.reason) || !strings.Contains(err.Error(), "no reply from ZooKeeper") {
				t.Fatalf("Err right after the silence = %v, want %v naming the silence", err, tt.reason)
			}
			select {
			case <-epoch.Done():
			default:
				t.Fatal("Err reported the silence but Done is open")
			}
			if got := epoch.Context().Err(); got == nil {
				t.Fatal("the epoch's context is not cancelled")
			}
			if _, err := w.Wait(testCtx(t)); !errors.Is(err, framework.ErrSessionInterrupted) {
				t.Fatalf("waiter: %v, want ErrSessionInterrupted", err)
			}
			s.expect(t, tt.states...)
			s.expect(t, framework.Reconnected)
			next := f.Session()
			if next == epoch || next.Err() != nil || f.SessionID() != id {
				t.Fatalf("after the reconnect: epoch %p (%v), session 0x%x, was 0x%x", next, next.Err(), f.SessionID(), id)
			}
			if err := f.Delete(testCtx(t), node); err != nil {
				t.Fatal(err)
			}
			zktest.Eventually(t, bound, "no live watch", func() bool { return f.Watches() == 0 })
			if len(s.ch) != 0 {
				t.Fatalf("extra state %v", <-s.ch)
			}
		})
	}
}

// Done closes at the deadline even if nobody calls Err: under SessionPolicy a partition makes
// go-zookeeper give the connection up at 2/3 of the session timeout (Suspended, the epoch lives
// on), and the epoch's own timer ends it with Lost once a whole session timeout has passed
// since the last reply, before the Suspended->Lost timer (a session timeout after Suspended).
func TestDeadlineTimerEndsEpochWithoutErr(t *testing.T) {
	const T = 2 * time.Second
	f, p, s := proxied(t, framework.WithErrorPolicy(framework.SessionPolicy), framework.WithSessionTimeout(T))
	epoch := f.Session()
	p.Blackhole(true)
	s.expect(t, framework.Suspended)
	select {
	case <-epoch.Done():
	case <-time.After(bound):
		t.Fatal("the epoch did not end")
	}
	err := epoch.Err()
	if !errors.Is(err, framework.ErrSessionLost) || !strings.Contains(err.Error(), "past the session timeout") {
		t.Fatalf("epoch Err = %v, want the deadline's ErrSessionLost", err)
	}
	s.expect(t, framework.Lost)
	p.Blackhole(false)
	s.expect(t, framework.Reconnected)
	if f.Session().Err() != nil {
		t.Fatalf("new epoch: %v", f.Session().Err())
	}
}
