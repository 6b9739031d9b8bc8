package leader

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// LatchLockName is the lock name of Curator's LeaderLatch nodes.
const LatchLockName = "latch-"

// LeaderLatch is Curator 5's LeaderLatch: a candidate that, once started, stays in the
// election until closed. Its node is P/_c_<uuid>-latch-<seq> (ephemeral sequential) with its
// id as data; the candidate whose node sorts first leads. When its term ends (session
// suspended or lost per the framework's error policy) it deletes its node and re-enters the
// election with a new one by itself. If entering fails for another reason than Close (the
// framework's retry policy gave up during an outage, say), it logs a warning and tries again
// after the next connection-state change. Close is the only way to give up leadership.
//
// It runs one goroutine while started. Safe for concurrent use.
type LeaderLatch struct {
	e      *election
	mode   CloseMode
	notify notifier
}

// NewLatch returns a latch on the election path (options: WithID, WithCloseMode). It does no
// I/O. A nil framework, an invalid path or a bad option is an error naming it.
func NewLatch(fw *framework.Framework, path string, opts ...Option) (*LeaderLatch, error) {
	o, err := build(opts)
	if err != nil {
		return nil, err
	}
	if o.autoRequeue {
		return nil, fmt.Errorf("%w: a latch always re-enters; WithAutoRequeue is for a selector", ErrInvalidArgument)
	}
	if o.graceSet {
		return nil, fmt.Errorf("%w: a latch deletes a lost term's node at once; WithLossGrace is for a selector", ErrInvalidArgument)
	}
	e, err := newElection(fw, path, o.id, driver.Standard(LatchLockName, 1), append([]byte{}, o.id...))
	if err != nil {
		return nil, err
	}
	return &LeaderLatch{e: e, mode: o.closeMode}, nil
}

// Start enters the election in the background and returns at once; it does not wait for a
// connection, and a session lost later makes the latch re-enter by itself. A second Start
// returns ErrAlreadyStarted; after Close, ErrClosed.
func (l *LeaderLatch) Start() error {
	if err := l.e.start(); err != nil {
		return err
	}
	_, err := l.e.spawn(l.run)
	return err
}

// Close leaves the election with the mode given to NewLatch; see CloseWithMode.
func (l *LeaderLatch) Close(ctx context.Context) error { return l.CloseWithMode(ctx, l.mode) }

// CloseWithMode leaves the election: the current term ends with ErrClosed, the latch's
// goroutine stops, and the node of a leader is deleted before it returns (a waiting
// candidate's node is deleted in the background). With CloseNotifyLeader a leader's
// listeners hear NotLeader (on their goroutine, possibly after Close returns); with
// CloseSilent no listener is called any more. If ctx ends first it returns an error wrapping
// ctx's, and the node goes when the goroutine ends. Closing a latch that is not started
// returns ErrNotStarted, or ErrClosed.
func (l *LeaderLatch) CloseWithMode(ctx context.Context, mode CloseMode) error {
	if mode != CloseSilent && mode != CloseNotifyLeader {
		return fmt.Errorf("%w: close mode %d", ErrInvalidArgument, int(mode))
	}
	return l.e.close(ctx, func() {
		if mode == CloseSilent {
			l.notify.silence()
		}
	})
}

// HasLeadership reports whether the latch is started and leads now: false from the moment
// its term ends (session suspended or lost per the error policy, or closed).
func (l *LeaderLatch) HasLeadership() bool { return l.e.current() != nil }

// Await blocks until the latch leads and returns the term. It returns ctx's error when ctx
// ends first, ErrClosed (or ErrNotStarted) when the latch is not started, and ErrStopped when
// its framework was closed. A term that ends while Await waits (session suspended or lost)
// is not returned: Await waits for the next one.
func (l *LeaderLatch) Await(ctx context.Context) (*Term, error) { return l.e.await(ctx) }

// AddListener registers li for leadership flips (see Listener; a term lost with the session
// calls NotLeader); remove unregisters it. Registering never blocks, and a latch that leads
// already does not replay IsLeader.
func (l *LeaderLatch) AddListener(li Listener) (remove func()) { return l.notify.add(li) }

// ID returns the latch's id (no I/O: unaffected by cancellation or session loss).
func (l *LeaderLatch) ID() string { return l.e.id }

// Path returns the election path (no I/O).
func (l *LeaderLatch) Path() string { return l.e.lock.Path() }

// State returns the latch's life-cycle state (no I/O; a session loss does not change it).
func (l *LeaderLatch) State() State {
	l.e.mu.Lock()
	defer l.e.mu.Unlock()
	return l.e.state
}

// Participants lists every candidate on the path in election order, the first marked as
// leader, with its id; it reads the server, not local state. ctx bounds the reads
// (cancellation returns ctx's error); during an outage the reads wait and retry under the
// framework's retry policy, then return its error.
func (l *LeaderLatch) Participants(ctx context.Context) ([]Participant, error) {
	return l.e.participants(ctx)
}

// Leader returns the candidate whose node sorts first, or the zero Participant when there is
// none (as Curator's dummy participant). ctx bounds the reads, as for Participants.
func (l *LeaderLatch) Leader(ctx context.Context) (Participant, error) { return l.e.leader(ctx) }

// run contends until ctx ends: acquire, lead until the term ends, and again.
func (l *LeaderLatch) run(ctx context.Context) {
	for ctx.Err() == nil {
		changed := l.e.stateChange()
		lease, err := l.e.lock.Acquire(ctx)
		if err != nil {
			if !l.e.pause(ctx, changed, err) {
				return
			}
			continue
		}
		l.lead(ctx, lease)
	}
}

// lead holds the term of lease until it ends or ctx ends, telling the listeners of both
// flips, then deletes the node (in the background when the term was lost: the old node goes
// as soon as the connection is back, before the latch queues again, as Curator's reset does).
func (l *LeaderLatch) lead(ctx context.Context, lease *recipes.Lease) {
	if ctx.Err() != nil { // granted as Close began: never lead
		l.e.release(lease)
		return
	}
	t := newTerm(lease)
	stop := context.AfterFunc(ctx, func() { t.end(ErrClosed) })
	defer stop()
	if l.e.setTerm(t) {
		l.notify.post(true)
	}
	<-t.Done()
	if l.e.setTerm(nil) {
		l.notify.post(false)
	}
	l.e.release(lease)
}
