package framework

import (
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ConnectionState is Curator's view of the connection.
type ConnectionState int

// Connection states. Latent is the state before the first session (an addition to Curator's set).
const (
	Latent      ConnectionState = iota // not connected yet
	Connected                          // the first session; reported once per Framework
	Suspended                          // disconnected while we had a session; locks are in doubt
	Reconnected                        // a session regained (the same one, or a new one after Lost)
	Lost                               // the session is gone (expired, replaced, or suspended too long)
	ReadOnly                           // read-only server (never reported: go-zookeeper has no read-only mode)
)

// String names the state.
func (s ConnectionState) String() string {
	switch s {
	case Latent:
		return "LATENT"
	case Connected:
		return "CONNECTED"
	case Suspended:
		return "SUSPENDED"
	case Reconnected:
		return "RECONNECTED"
	case Lost:
		return "LOST"
	case ReadOnly:
		return "READ_ONLY"
	}
	return fmt.Sprintf("ConnectionState(%d)", int(s))
}

// IsConnected reports whether operations can run in this state.
func (s ConnectionState) IsConnected() bool {
	return s == Connected || s == Reconnected || s == ReadOnly
}

// stateMachine turns go-zookeeper session events into Curator states and session epochs. Its
// methods run on go-zookeeper's event callback, on the suspend timer, and for the epoch's
// deadline (deadline.go) on its timer, in Session.Err and on socket reads; mu serialises them.
// It never blocks beyond mu: it closes channels and sockets and queues states for the listener
// hub, and never calls the connection.
type stateMachine struct {
	policy  ErrorPolicy
	timeout func() time.Duration // the negotiated session timeout, for the Suspended->Lost timer
	post    func(s ConnectionState, session int64)
	log     func(msg string, args ...any)
	// lastRead returns when the Framework last read from a server (monoNow; 0: never), cut
	// closes the connection: the epoch's deadline (deadline.go). A nil lastRead: no deadline.
	lastRead func() int64
	cut      func()

	mu         sync.Mutex
	state      ConnectionState
	hadSession bool
	lastID     int64
	epoch      *Session
	connected  chan struct{} // closed while connected
	timer      *time.Timer
	timerGen   int
	closed     bool
}

func (m *stateMachine) init() {
	m.epoch = newSession(0, nil)
	m.connected = make(chan struct{})
}

// onEvent handles one session event.
func (m *stateMachine) onEvent(ev zk.Event, sessionID int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	switch ev.State {
	case zk.StateHasSession:
		m.onSession(sessionID)
	case zk.StateDisconnected:
		m.onDisconnected()
	case zk.StateExpired:
		m.stopTimer()
		m.lose(ErrSessionLost)
	}
}

func (m *stateMachine) onSession(id int64) {
	m.stopTimer()
	if !m.hadSession {
		m.hadSession, m.lastID = true, id
		m.epoch.end(ErrSessionLost) // the placeholder epoch (id 0) handed out before connecting
		m.epoch = m.newEpoch(id)
		m.set(Connected)
		return
	}
	if id != m.lastID && m.state != Lost {
		m.lose(ErrSessionLost) // a new session without an Expired event: the old one is gone
	}
	if m.epoch.ended() || m.epoch.id != id {
		m.epoch.end(ErrSessionLost)
		m.epoch = m.newEpoch(id)
	}
	m.lastID = id
	m.set(Reconnected)
}

func (m *stateMachine) onDisconnected() {
	if !m.state.IsConnected() {
		return // already Suspended (maybe by the deadline, deadline.go) or Lost
	}
	m.suspend(ErrSuspended)
}

// suspend moves to Suspended, ends the epoch with cause under StandardPolicy, and arms the
// Suspended->Lost timer.
func (m *stateMachine) suspend(cause error) {
	m.set(Suspended)
	if m.policy == StandardPolicy {
		m.epoch.end(cause)
	}
	m.timerGen++
	gen := m.timerGen
	m.timer = time.AfterFunc(m.timeout(), func() { m.suspendedTooLong(gen) })
}

// suspendedTooLong reports Lost when Suspended outlasted the session timeout: the server has
// expired the session by now even if we could not hear it.
func (m *stateMachine) suspendedTooLong(gen int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || gen != m.timerGen || m.state != Suspended {
		return
	}
	m.log("suspended longer than the session timeout: session presumed lost")
	m.lose(ErrSessionLost)
}

// lose moves to Lost (once) and ends the epoch with cause (wrapping ErrSessionLost).
func (m *stateMachine) lose(cause error) {
	if !m.hadSession || m.state == Lost {
		return
	}
	m.epoch.end(cause)
	m.set(Lost)
}

// set changes the state, posts it to the listeners and maintains the connected signal.
func (m *stateMachine) set(s ConnectionState) {
	m.state = s
	m.post(s, m.lastID)
	if s.IsConnected() {
		select {
		case <-m.connected:
		default:
			close(m.connected)
		}
		return
	}
	select {
	case <-m.connected:
		m.connected = make(chan struct{})
	default:
	}
}

func (m *stateMachine) stopTimer() {
	m.timerGen++
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
}

// close ends the machine: the epoch ends with ErrClosed and no more states are reported.
func (m *stateMachine) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.stopTimer()
	m.epoch.end(ErrClosed)
}

func (m *stateMachine) snapshot() (ConnectionState, *Session, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state, m.epoch, m.connected
}
