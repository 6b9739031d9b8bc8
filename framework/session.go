package framework

import (
	"context"
	"fmt"
	"sync"
)

// Session is one session epoch: from a Connected/Reconnected until the error policy says the epoch
// is over (StandardPolicy: Suspended or Lost; SessionPolicy: Lost only) or the Framework closes.
// A lock acquired in an epoch is only trustworthy while the epoch's Done is open. Safe for
// concurrent use.
type Session struct {
	id     int64
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu  sync.Mutex
	err error
}

func newSession(id int64) *Session {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Session{id: id, done: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// ID returns the ZooKeeper session id of this epoch.
func (s *Session) ID() int64 { return s.id }

// Done returns a channel that closes when the epoch ends.
func (s *Session) Done() <-chan struct{} { return s.done }

// Context returns a context cancelled when the epoch ends, with Err as its cause: a parent for
// work that must stop with the session, or a trigger for context.AfterFunc.
func (s *Session) Context() context.Context { return s.ctx }

// Err returns nil while the epoch is live; afterwards an error wrapping ErrSuspended,
// ErrSessionLost or ErrClosed, naming the session id.
func (s *Session) Err() error {
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
	close(s.done)
	s.cancel(s.err)
	return true
}

// ended reports whether the epoch is over.
func (s *Session) ended() bool { return s.Err() != nil }
