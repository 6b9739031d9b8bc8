package framework

import (
	"fmt"
	"time"
)

// A session epoch knows its own deadline. go-zookeeper gives up a connection when it has read
// nothing for 2/3 of the negotiated session timeout (its recvTimeout; it pings every third of the
// timeout, so a healthy idle connection is never silent for more than about a third). But it
// notices only when its receive goroutine runs: a process paused (SIGSTOP, a long GC, a frozen
// VM) past that point would, after it resumes, see a live epoch until that goroutine has been
// scheduled, and could act on a lock that another process may hold by now.
//
// The Framework reads every byte through its own dialer (dialer.go), so it knows when it last
// heard from the server. An epoch ends as soon as that is longer ago than its deadline, whoever
// looks first:
//   - Session.Err compares the clock on every call, synchronously;
//   - one timer per epoch fires at the deadline and re-arms for the rest while replies come in
//     (so Done closes even if nobody calls Err);
//   - the socket itself, before it records a read that comes after such a silence (a reply that
//     waited in the kernel through a pause must not make the silence look short).
//
// Ending the epoch moves to Suspended (StandardPolicy) or Lost (SessionPolicy, whose deadline is
// the whole session timeout) exactly as a disconnect would, and cuts the socket, so that
// go-zookeeper's own events follow the same path as after any disconnect: its Disconnected is
// then a no-op, and its reconnect reports Reconnected, or Expired and Lost.

// monoBase anchors monoNow. time.Since reads the monotonic clock (CLOCK_MONOTONIC on Linux),
// which keeps running while the process is stopped.
var monoBase = time.Now()

// monoNow returns the monotonic time in nanoseconds since monoBase.
func monoNow() int64 { return int64(time.Since(monoBase)) }

// deadline returns how long the connection may be silent before the epoch ends, and what that
// point is.
func (m *stateMachine) deadline() (time.Duration, string) {
	t := m.timeout()
	if m.policy == SessionPolicy {
		return t, "session timeout"
	}
	return t * 2 / 3, "2/3-of-session-timeout deadline"
}

// silence returns how long ago the Framework last read from a server (0 before any read).
func (m *stateMachine) silence() time.Duration {
	last := m.lastRead()
	if last == 0 {
		return 0
	}
	return time.Duration(monoNow() - last)
}

// newEpoch returns a live epoch for session id, with its deadline check and timer when the
// machine has a clock (the state machine's unit tests run some without).
func (m *stateMachine) newEpoch(id int64) *Session {
	if m.lastRead == nil {
		return newSession(id, nil)
	}
	s := newSession(id, m.checkDeadline)
	d, _ := m.deadline()
	// The negotiated timeout is known by now: the dialer read it from the ConnectResponse
	// before go-zookeeper reported this session (credentials.go).
	s.mu.Lock()
	s.timer = time.AfterFunc(d, func() { m.deadlineTimer(s) })
	s.mu.Unlock()
	return s
}

// checkDeadline is Session.Err's check: lock-free while the connection is fresh.
func (m *stateMachine) checkDeadline(s *Session) {
	silent := m.silence()
	if d, _ := m.deadline(); silent <= d {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trip(s, silent)
}

// deadlineTimer ends epoch s if the connection has been silent past the deadline, or waits
// for the rest of it.
func (m *stateMachine) deadlineTimer(s *Session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	silent := m.silence()
	if m.trip(s, silent) {
		return
	}
	d, _ := m.deadline()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && !m.closed {
		s.timer.Reset(max(d-silent, 0) + time.Millisecond)
	}
}

// heardAfter runs on a socket read that comes silent after the previous one, before the read
// is recorded: a silence past the deadline ends the epoch even if these bytes arrived long ago.
func (m *stateMachine) heardAfter(silent time.Duration) {
	if d, _ := m.deadline(); silent <= d {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.trip(m.epoch, silent)
}

// trip ends s, the current live epoch, because the connection has been silent past the
// deadline, and reports whether it did. It moves to Suspended, or to Lost under SessionPolicy,
// as a disconnect would, and cuts the connection if go-zookeeper still holds one, so that its
// reconnect brings the next epoch. Runs under m.mu.
func (m *stateMachine) trip(s *Session, silent time.Duration) bool {
	d, what := m.deadline()
	if m.closed || s != m.epoch || s.check == nil || s.ended() || silent <= d {
		return false
	}
	silent = silent.Round(time.Millisecond)
	m.log("framework: no reply from ZooKeeper past the deadline: giving up the connection",
		"silent", silent, "deadline", d, "session", fmt.Sprintf("0x%x", s.id))
	connected := m.state.IsConnected()
	if m.policy == SessionPolicy {
		if connected {
			m.set(Suspended)
		}
		m.stopTimer()
		m.lose(fmt.Errorf("%w: no reply from ZooKeeper for %v, past the %s (%v)", ErrSessionLost, silent, what, d.Round(time.Millisecond)))
	} else {
		m.suspend(fmt.Errorf("%w: no reply from ZooKeeper for %v, past the %s (%v)", ErrSuspended, silent, what, d.Round(time.Millisecond)))
	}
	if connected && m.cut != nil {
		m.cut()
	}
	return true
}
