package framework

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// clockedMachine is a test machine with a deadline: lastRead is set by the test, cuts counts
// how often the connection was cut.
func clockedMachine(policy ErrorPolicy, timeout time.Duration) (m *stateMachine, posted chan ConnectionState, lastRead, cuts *atomic.Int64) {
	m, posted = newTestMachine(policy, timeout)
	lastRead, cuts = new(atomic.Int64), new(atomic.Int64)
	lastRead.Store(monoNow())
	m.lastRead = lastRead.Load
	m.cut = func() { cuts.Add(1) }
	return m, posted, lastRead, cuts
}

// expectPosted fails the test unless the machine posts exactly want, in order.
func expectPosted(t *testing.T, posted chan ConnectionState, want ...ConnectionState) {
	t.Helper()
	receivePosted(t, posted, want...)
	if len(posted) != 0 {
		t.Fatalf("extra state %v", <-posted)
	}
}

// receivePosted fails the test unless the machine's next posts are want, in order, each within
// 5 s; it does not look past them.
func receivePosted(t *testing.T, posted chan ConnectionState, want ...ConnectionState) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-posted:
			if got != w {
				t.Fatalf("state %v, want %v", got, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %v", w)
		}
	}
}

// Past the deadline the first check ends the epoch (Suspended, or Suspended then Lost), cuts
// the connection once, and go-zookeeper's later Disconnected changes nothing; its reconnect
// brings a fresh live epoch. Inside the deadline nothing happens.
func TestDeadlineTripsOnce(t *testing.T) {
	const T = time.Hour // no timer fires during the test
	tests := []struct {
		name   string
		policy ErrorPolicy
		silent time.Duration
		reason error
		states []ConnectionState
	}{
		{"standard", StandardPolicy, T*2/3 + time.Second, ErrSuspended, []ConnectionState{Suspended}},
		{"session", SessionPolicy, T + time.Second, ErrSessionLost, []ConnectionState{Suspended, Lost}},
	}
	for _, tt := range tests {
		for _, via := range []string{"Err", "read"} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				m, posted, lastRead, cuts := clockedMachine(tt.policy, T)
				m.onEvent(session(zk.StateHasSession), 1)
				_, epoch, _ := m.snapshot()
				lastRead.Store(monoNow() - int64(tt.silent) + int64(2*time.Second)) // inside
				if epoch.Err() != nil {
					t.Fatalf("inside the deadline: %v", epoch.Err())
				}
				m.heardAfter(tt.silent - 2*time.Second)
				expectPosted(t, posted, Connected)
				lastRead.Store(monoNow() - int64(tt.silent))
				switch via {
				case "Err":
					if err := epoch.Err(); !errors.Is(err, tt.reason) || !strings.Contains(err.Error(), "no reply") {
						t.Fatalf("Err = %v, want %v", err, tt.reason)
					}
				case "read":
					m.heardAfter(tt.silent)
					if !errors.Is(epoch.endErr(), tt.reason) {
						t.Fatalf("after the read: %v", epoch.endErr())
					}
				}
				_ = epoch.Err()
				m.heardAfter(tt.silent)
				expectPosted(t, posted, tt.states...)
				if cuts.Load() != 1 {
					t.Fatalf("%d cuts, want 1", cuts.Load())
				}
				m.onEvent(session(zk.StateDisconnected), 1)
				expectPosted(t, posted)
				lastRead.Store(monoNow())
				m.onEvent(session(zk.StateHasSession), 1)
				expectPosted(t, posted, Reconnected)
				if _, cur, _ := m.snapshot(); cur == epoch || cur.Err() != nil {
					t.Fatalf("no fresh epoch after the reconnect: %v", cur.Err())
				}
				m.close()
			})
		}
	}
}

// A silence noticed while go-zookeeper is already reconnecting (StandardPolicy: the epoch
// ended at Suspended) changes nothing and cuts nothing: the new connection's handshake goes on.
func TestDeadlineWhileSuspended(t *testing.T) {
	m, posted, _, cuts := clockedMachine(StandardPolicy, time.Hour)
	m.onEvent(session(zk.StateHasSession), 1)
	m.onEvent(session(zk.StateDisconnected), 1)
	m.heardAfter(2 * time.Hour)
	expectPosted(t, posted, Connected, Suspended)
	if cuts.Load() != 0 {
		t.Fatal("a connection cut while none was held")
	}
	m.close()
}

// The epoch's timer re-arms while replies come in and ends the epoch once they stop, without
// any Err call; an epoch that ends otherwise stops it. The replies are the test's own ticker, so
// a stall of the test's goroutine past the deadline is a true silence and rightly ends the epoch
// (with T = 300 ms, 1.5 s and 3 s a stall of 201 ms, 1.002 s and 2.002 s did so in CI under
// -race, load 7): the test measures its own stalls and runs again, at most 3 times, when one
// explains the end. An end with no such stall fails it.
func TestDeadlineTimer(t *testing.T) {
	for try := 1; ; try++ {
		stalled := deadlineTimerOnce(t)
		if !stalled || t.Failed() {
			return
		}
		if try == 3 {
			t.Fatal("the test's goroutine stalled past the deadline in 3 runs out of 3")
		}
		t.Logf("run %d: the test's own goroutine stalled past the deadline: running again", try)
	}
}

// deadlineTimerOnce is one run of TestDeadlineTimer; it reports true when the epoch ended while
// replies came in AND the test's goroutine had stalled for over half the deadline.
func deadlineTimerOnce(t *testing.T) (stalled bool) {
	const T = 3 * time.Second // deadline 2 s
	m, posted, lastRead, cuts := clockedMachine(StandardPolicy, T)
	defer m.close()
	m.onEvent(session(zk.StateHasSession), 1)
	_, epoch, _ := m.snapshot()
	replies := time.NewTicker(T / 30)
	defer replies.Stop()
	lastTick, maxGap := monoNow(), int64(0)
	for end := time.After(2 * T); ; { // replies for 2 T, three deadlines: the epoch lives on
		select {
		case <-replies.C:
			now := monoNow()
			maxGap, lastTick = max(maxGap, now-lastTick), now
			lastRead.Store(now)
			continue
		case <-epoch.Done():
			gap := time.Duration(max(maxGap, monoNow()-lastTick))
			if gap > time.Second { // half the deadline
				return true
			}
			t.Fatalf("epoch ended while replies came in (longest gap between them %v): %v", gap, epoch.endErr())
		case <-end:
		}
		break
	}
	replies.Stop()
	select {
	case <-epoch.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the timer did not end the epoch")
	}
	if !errors.Is(epoch.endErr(), ErrSuspended) || cuts.Load() != 1 {
		t.Fatalf("epoch %v, %d cuts", epoch.endErr(), cuts.Load())
	}
	expectPosted(t, posted, Connected, Suspended)
	return false
}

// The deadline's cost on the hot paths: one clock reading per socket read, and Session.Err's
// lock-free check while the connection is fresh.
func BenchmarkDeadlineHeard(b *testing.B) {
	m, _, _, _ := clockedMachine(StandardPolicy, 10*time.Second)
	t := newConnTracker(nil, nil)
	t.heardAfter = m.heardAfter
	for b.Loop() {
		t.heard()
	}
}

func BenchmarkDeadlineSessionErr(b *testing.B) {
	m, _, lastRead, _ := clockedMachine(StandardPolicy, 10*time.Second)
	m.onEvent(session(zk.StateHasSession), 1)
	_, epoch, _ := m.snapshot()
	lastRead.Store(monoNow())
	for b.Loop() {
		if epoch.Err() != nil {
			b.Fatal("ended")
		}
	}
	m.close()
}

// Session.Done and Context().Err() in a hot select loop: the same check as Err. (A session
// timeout of an hour: the connection stays fresh however long the sub-benchmarks run.)
func BenchmarkDeadlineSessionDone(b *testing.B) {
	m, _, lastRead, _ := clockedMachine(StandardPolicy, time.Hour)
	m.onEvent(session(zk.StateHasSession), 1)
	_, epoch, _ := m.snapshot()
	lastRead.Store(monoNow())
	b.Run("Done", func(b *testing.B) {
		for b.Loop() {
			select {
			case <-epoch.Done():
				b.Fatal("ended")
			default:
			}
		}
	})
	b.Run("ContextErr", func(b *testing.B) {
		ctx := epoch.Context()
		for b.Loop() {
			if ctx.Err() != nil {
				b.Fatal("ended")
			}
		}
	})
	m.close()
}
