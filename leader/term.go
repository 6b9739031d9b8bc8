package leader

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// Term is one period of leadership: from the grant of the candidate's node until the term
// ends, because the session was suspended or lost (per the framework's error policy), the
// recipe was closed, or, for a selector, the takeover returned. Once Done is closed another
// candidate may lead: stop acting as the leader. Safe for concurrent use.
type Term struct {
	lease   *recipes.Lease
	ctx     context.Context
	checked context.Context // ctx whose Done and Err ask the lease first (Context)
	cancel  context.CancelCauseFunc
}

// newTerm wraps a granted lease; the term ends with the lease, or earlier through end.
func newTerm(lease *recipes.Lease) *Term {
	ctx, cancel := context.WithCancelCause(lease.Context())
	t := &Term{lease: lease, ctx: ctx, cancel: cancel}
	t.checked = framework.WithCheck(ctx, t.poll)
	return t
}

// poll asks the lease, which checks the session's deadline, and ends t at once, with the
// lease's cause, when the lease has ended. The lease's end reaches t.ctx, its child, only after
// it has closed the lease's own Done: a check between the two would find the lease ended and the
// term live (a holder resumed after a pause did, issue 27's CI run). Err's context.Cause waits
// for that cancel to finish.
func (t *Term) poll() {
	select {
	case <-t.ctx.Done():
		return
	case <-t.lease.Done():
		t.cancel(t.lease.Err())
	default:
	}
}

// end ends the term with cause (the first cause wins).
func (t *Term) end(cause error) { t.cancel(cause) }

// Path returns the path of the node that won the election (Curator's getLastPathIsLeader);
// after the term ended the node may be gone.
func (t *Term) Path() string { return t.lease.Path() }

// Done returns a channel that closes when the term ends: session suspended or lost per the
// error policy, recipe closed, or takeover returned. Like Err, every call first checks the
// session's deadline (one clock reading), so it reports the end on its first call after a
// pause past it.
func (t *Term) Done() <-chan struct{} {
	t.poll()
	return t.ctx.Done()
}

// Err returns nil while the term lasts; afterwards why it ended: an error wrapping
// recipes.ErrLockLost (with the session's reason: framework.ErrSuspended, ErrSessionLost or
// ErrClosed), or ErrClosed (the recipe was closed), ErrInterrupted or ErrTakeoverReturned.
//
// Like the lease's Err, every call while the term looks live checks the session's deadline,
// so that a process resumed after a pause longer than it learns at once that its term ended.
func (t *Term) Err() error {
	if t.ctx.Err() == nil {
		if err := t.lease.Err(); err != nil { // ended, maybe just now by the deadline: end t too
			t.cancel(err)
		}
	}
	return context.Cause(t.ctx)
}

// Context returns a context cancelled when the term ends, with Err as its cause: the parent
// for work that only the leader may do. Its Done and Err check the session's deadline first,
// as the term's Done does.
func (t *Term) Context() context.Context { return t.checked }

// Token returns the term's fencing token, the czxid of its node: it grows with every new
// term across the ensemble. Have the protected resource refuse tokens lower than the highest
// it has seen. It may read the node's stat under ctx (then cancellation returns ctx's error);
// a node that is gone, as after a session loss, returns an error wrapping framework.ErrNoNode.
func (t *Term) Token(ctx context.Context) (int64, error) { return t.lease.Token(ctx) }

// SessionID returns the ZooKeeper session that owns the term's node (its ephemeral owner).
func (t *Term) SessionID() int64 { return t.lease.SessionID() }

// Guard returns a check operation on the term's node: put it first in a framework Multi so
// that the transaction commits only while the node exists (never after the session is lost).
func (t *Term) Guard() framework.Op { return t.lease.Guard() }
