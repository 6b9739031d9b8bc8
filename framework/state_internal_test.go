package framework

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// newTestMachine returns a state machine that records posted states.
func newTestMachine(policy ErrorPolicy, timeout time.Duration) (*stateMachine, chan ConnectionState) {
	posted := make(chan ConnectionState, 100)
	m := &stateMachine{policy: policy, timeout: func() time.Duration { return timeout },
		post: func(s ConnectionState, _ int64) { posted <- s }, log: func(string, ...any) {}}
	m.init()
	return m, posted
}

func session(s zk.State) zk.Event { return zk.Event{Type: zk.EventSession, State: s} }

func TestStateMachineTransitions(t *testing.T) {
	tests := []struct {
		name   string
		policy ErrorPolicy
		steps  []struct {
			state zk.State
			id    int64
		}
		want     []ConnectionState
		epochErr error // of the first session's epoch; nil: still live
	}{
		{"connect", StandardPolicy, steps(zk.StateConnecting, 0, zk.StateHasSession, 1),
			[]ConnectionState{Connected}, nil},
		{"suspend-standard", StandardPolicy, steps(zk.StateHasSession, 1, zk.StateDisconnected, 1, zk.StateDisconnected, 1, zk.StateHasSession, 1),
			[]ConnectionState{Connected, Suspended, Reconnected}, ErrSuspended},
		{"suspend-session-policy", SessionPolicy, steps(zk.StateHasSession, 1, zk.StateDisconnected, 1, zk.StateHasSession, 1),
			[]ConnectionState{Connected, Suspended, Reconnected}, nil},
		{"expired", SessionPolicy, steps(zk.StateHasSession, 1, zk.StateDisconnected, 1, zk.StateExpired, 1, zk.StateDisconnected, 0, zk.StateHasSession, 2),
			[]ConnectionState{Connected, Suspended, Lost, Reconnected}, ErrSessionLost},
		{"silent-new-session", SessionPolicy, steps(zk.StateHasSession, 1, zk.StateDisconnected, 1, zk.StateHasSession, 2),
			[]ConnectionState{Connected, Suspended, Lost, Reconnected}, ErrSessionLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, posted := newTestMachine(tt.policy, time.Hour)
			var first *Session
			for _, st := range tt.steps {
				m.onEvent(session(st.state), st.id)
				if first == nil && st.state == zk.StateHasSession {
					_, first, _ = m.snapshot()
				}
			}
			for i, w := range tt.want {
				if got := <-posted; got != w {
					t.Fatalf("state %d = %v, want %v", i, got, w)
				}
			}
			if len(posted) != 0 {
				t.Fatalf("extra state %v", <-posted)
			}
			if err := first.Err(); (tt.epochErr == nil) != (err == nil) || (err != nil && !errors.Is(err, tt.epochErr)) {
				t.Fatalf("first epoch Err = %v, want %v", err, tt.epochErr)
			}
			state, cur, connected := m.snapshot()
			if state.IsConnected() {
				select {
				case <-connected:
				default:
					t.Fatal("connected signal open while connected")
				}
				if cur.Err() != nil {
					t.Fatalf("current epoch ended while connected: %v", cur.Err())
				}
			}
			m.close()
			if !errors.Is(cur.Err(), ErrClosed) && cur.Err() == nil {
				t.Fatal("epoch not ended by close")
			}
		})
	}
}

func TestStateMachineSuspendTimer(t *testing.T) {
	m, posted := newTestMachine(SessionPolicy, 20*time.Millisecond)
	m.onEvent(session(zk.StateHasSession), 1)
	_, epoch, _ := m.snapshot()
	m.onEvent(session(zk.StateDisconnected), 1)
	receivePosted(t, posted, Connected, Suspended, Lost)
	if !errors.Is(epoch.Err(), ErrSessionLost) {
		t.Fatalf("epoch Err = %v", epoch.Err())
	}
	// The same session comes back (it was not really expired): Reconnected, new epoch.
	m.onEvent(session(zk.StateHasSession), 1)
	if got := <-posted; got != Reconnected {
		t.Fatalf("state %v, want Reconnected", got)
	}
	if _, cur, _ := m.snapshot(); cur == epoch || cur.Err() != nil {
		t.Fatal("no fresh epoch after Lost")
	}
	m.close()
}

func steps(pairs ...any) []struct {
	state zk.State
	id    int64
} {
	var out []struct {
		state zk.State
		id    int64
	}
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, struct {
			state zk.State
			id    int64
		}{pairs[i].(zk.State), int64(pairs[i+1].(int))})
	}
	return out
}
