package framework

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Session is one session epoch: from a Connected/Reconnected until the error policy says the epoch
// is over (StandardPolicy: Suspended or Lost; SessionPolicy: Lost only), the connection has been
// silent past its deadline (see Err), or the Framework closes. A lock acquired in an epoch is only
// trustworthy while the epoch's Done is open. Safe for concurrent use.
type Session struct {
	id      int64
	done    chan struct{}
	ctx     context.Context
	checked context.Context // ctx whose Done and Err first check the deadline (Context)
	cancel  context.CancelCauseFunc
	// check, nil for the placeholder epoch, ends the epoch if the connection has been silent
	// past its deadline (deadline.go).
	check func(*Session)

	mu    sync.Mutex
	err   error
	timer *time.Timer // the deadline timer (deadline.go); stopped when the epoch ends
	hooks endHooks    // AfterEnd's, started when the epoch ends (endhook.go)
}

func newSession(id int64, check func(*Session)) *Session {
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Session{id: id, done: make(chan struct{}), ctx: ctx, cancel: cancel, check: check}
	s.checked = ctx
	if check != nil {
		s.checked = WithCheck(ctx, s.poll)
	}
	return s
}

// ID returns the ZooKeeper session id of this epoch.
func (s *Session) ID() int64 { return s.id }

// Done returns a channel that closes when the epoch ends. Like Err, every call first checks
// the deadline (one clock reading while the epoch lives): a call past it ends the epoch and
// returns the channel closed, so `select { case <-s.Done(): ... default: }` reports the loss on
// its first call after a pause, before the runtime has run the deadline's timer (which closes
// the channel for those who only wait on it).
func (s *Session) Done() <-chan struct{} {
	s.poll()
	return s.done
}

// Context returns a context cancelled when the epoch ends, with Err as its cause: a parent for
// work that must stop with the session, or a trigger for context.AfterFunc. Its Done and Err
// check the deadline first, as Session.Done does (see WithCheck).
func (s *Session) Context() context.Context { return s.checked }

// poll ends a live epoch whose connection has been silent past its deadline (see Err).
func (s *Session) poll() {
	if s.check == nil {
		return
	}
	select {
	case <-s.done:
	default:
		s.check(s)
	}
}

// Err returns nil while the epoch is live; afterwards an error wrapping ErrSuspended,
// ErrSessionLost or ErrClosed, naming the session id.
//
// Every call also compares the time since the Framework last read from the server with the
// point where the connection is given up: 2/3 of the negotiated session timeout under
// StandardPolicy (where go-zookeeper gives up the connection), the whole session timeout under
// SessionPolicy (where a server that heard nothing from us has expired the session). Past it,
// Err ends the epoch at once (Done and Context close, the listeners see Suspended, or Lost
// under SessionPolicy, and the connection is cut so that go-zookeeper reconnects) and returns
// the reason, wrapping ErrSuspended (ErrSessionLost under SessionPolicy): it does not wait for
// go-zookeeper to notice, so a process paused longer than the deadline learns it on its first
// Err after it resumes.
func (s *Session) Err() error {
	if err := s.endErr(); err != nil || s.check == nil {
		return err
	}
	s.check(s)
	return s.endErr()
}

// endErr is Err without the deadline check: for the state machine, which holds its lock.
func (s *Session) endErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// end closes the epoch with cause; only the first call counts. It reports whether it ended it.
func (s *Session) end(cause error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	s.err = fmt.Errorf("%w (session 0x%x)", cause, s.id)
	if s.timer != nil {
		s.timer.Stop()
	}
	close(s.done)
	s.cancel(s.err)
	s.runHooks()
	return true
}

// ended reports whether the epoch is over (without the deadline check).
func (s *Session) ended() bool { return s.endErr() != nil }
