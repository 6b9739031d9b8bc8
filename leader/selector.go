package leader

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// TakeoverFunc is a selector's leadership: it runs while the candidate holds the lock, and
// returning gives leadership up. ctx is the term's context (term.Context()): it is cancelled
// when the session is suspended or lost per the framework's error policy, when the selector
// is closed, or on InterruptLeadership; the function must then return promptly. A returned
// error is logged at debug level and otherwise ignored, as Curator ignores exceptions. If it
// panics, its node is deleted before the panic goes on.
type TakeoverFunc func(ctx context.Context, term *Term) error

// LeaderSelector is Curator 5's LeaderSelector: candidates queue on an InterProcessMutex at P
// (nodes P/_c_<uuid>-lock-<seq>, so Java and Go selectors share one election) and the holder
// runs the takeover function; when it returns, the node is deleted and the next candidate
// leads. A term lost with the connection cancels the takeover's context at once, but the node
// stays (while the session lives) until the takeover has returned, or the lock's loss grace
// (the session timeout, or WithLossGrace) has passed: a blip never makes two takeovers run at
// once. With
// WithAutoRequeue the selector queues again after every term; otherwise call
// Requeue.
//
// At most one takeover of a selector runs at a time, on a goroutine of the selector's own;
// the selector runs that goroutine only while it is queued or leading. Safe for concurrent use.
type LeaderSelector struct {
	e           *election
	takeover    TakeoverFunc
	autoRequeue bool
}

// NewSelector returns a selector on the election path that runs takeover when it leads
// (options: WithID, WithAutoRequeue, WithLossGrace). It does no I/O. A nil framework or
// takeover, an invalid path or a bad option is an error naming it.
func NewSelector(fw *framework.Framework, path string, takeover TakeoverFunc, opts ...Option) (*LeaderSelector, error) {
	o, err := build(opts)
	if err != nil {
		return nil, err
	}
	if takeover == nil {
		return nil, fmt.Errorf("%w: nil takeover function", ErrInvalidArgument)
	}
	if o.modeSet {
		return nil, fmt.Errorf("%w: WithCloseMode is for a latch", ErrInvalidArgument)
	}
	var data []byte
	if o.id != "" {
		data = []byte(o.id)
	}
	e, err := newElection(fw, path, o.id, driver.Exclusive(), data, o.lockOptions(recipes.KindSelector)...)
	if err != nil {
		return nil, err
	}
	return &LeaderSelector{e: e, takeover: takeover, autoRequeue: o.autoRequeue}, nil
}

// Start queues the selector for leadership in the background and returns at once. A term
// lost with the session cancels the takeover's context; the selector then queues again only
// with WithAutoRequeue (which also retries an entry that failed during an outage, after the
// next connection-state change). A second Start returns ErrAlreadyStarted; after Close,
// ErrClosed.
func (s *LeaderSelector) Start() error {
	if err := s.e.start(); err != nil {
		return err
	}
	_, err := s.e.spawn(s.work)
	return err
}

// Requeue queues the selector again after its takeover returned, its term was lost with the
// session, or its entry failed. It reports false when the selector is queued or leading
// already. A selector that is not
// started returns ErrNotStarted, or ErrClosed.
func (s *LeaderSelector) Requeue() (bool, error) { return s.e.spawn(s.work) }

// Close leaves the election: the term's context is cancelled with ErrClosed (a queued
// candidate stops waiting and its node is deleted in the background), and Close waits, bounded
// by ctx, for the takeover to return and the node to be deleted. If ctx ends first it returns
// an error wrapping ctx's; the node goes when the takeover returns. Do not call Close from the
// takeover function: return from it instead.
func (s *LeaderSelector) Close(ctx context.Context) error { return s.e.close(ctx, nil) }

// HasLeadership reports whether the takeover function runs for a term that has not ended:
// false from the moment the session is suspended or lost per the error policy.
func (s *LeaderSelector) HasLeadership() bool { return s.e.current() != nil }

// InterruptLeadership cancels the current term's context (with ErrInterrupted), asking the
// takeover function to return; it does nothing when the selector does not lead.
func (s *LeaderSelector) InterruptLeadership() {
	if t := s.e.current(); t != nil {
		t.end(ErrInterrupted)
	}
}

// ID returns the selector's id (no I/O).
func (s *LeaderSelector) ID() string { return s.e.id }

// Path returns the election path (no I/O).
func (s *LeaderSelector) Path() string { return s.e.lock.Path() }

// State returns the selector's life-cycle state (no I/O; a session loss does not change it).
func (s *LeaderSelector) State() State {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	return s.e.state
}

// Participants lists every candidate on the path in election order, the first marked as
// leader, with its id (Java candidates included). ctx bounds the reads (cancellation returns
// ctx's error); during an outage they retry under the framework's retry policy.
func (s *LeaderSelector) Participants(ctx context.Context) ([]Participant, error) {
	return s.e.participants(ctx)
}

// Leader returns the candidate whose node sorts first, or the zero Participant when there is
// none. It may be a holder that has just returned, or a waiter not yet told it is first. ctx
// bounds the reads, as for Participants.
func (s *LeaderSelector) Leader(ctx context.Context) (Participant, error) { return s.e.leader(ctx) }

// work acquires and leads, once, or until ctx ends under AutoRequeue.
func (s *LeaderSelector) work(ctx context.Context) {
	for ctx.Err() == nil {
		changed := s.e.stateChange()
		lease, err := s.e.lock.Acquire(ctx)
		if err != nil {
			if !s.autoRequeue {
				if ctx.Err() == nil {
					s.e.fw.Logger().Warn("leader: could not enter the election", "path", s.e.lock.Path(), "err", err)
				}
				return
			}
			if !s.e.pause(ctx, changed, err) {
				return
			}
			continue
		}
		s.lead(ctx, lease)
		if !s.autoRequeue {
			return
		}
	}
}

// lead runs the takeover for the term of lease, then deletes the node: when the takeover
// returns, panics, or the term ends and it returns.
func (s *LeaderSelector) lead(ctx context.Context, lease *recipes.Lease) {
	defer s.e.release(lease)
	if ctx.Err() != nil {
		return
	}
	t := newTerm(lease)
	stop := context.AfterFunc(ctx, func() { t.end(ErrClosed) })
	defer stop()
	s.e.setTerm(t)
	defer func() {
		t.end(ErrTakeoverReturned)
		s.e.setTerm(nil)
	}()
	if err := s.takeover(t.Context(), t); err != nil {
		s.e.fw.Logger().Debug("leader: takeover returned an error", "path", lease.Path(), "err", err)
	}
}
