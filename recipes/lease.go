package recipes

import (
	"context"
	"fmt"
	"path"
	"sync"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Held is what every lease offers, reentrant or not: the loss signal, the fencing token, a
// guard for transactions, and release. InterProcessMultiLock holds a set of them.
type Held interface {
	Path() string
	Done() <-chan struct{}
	Err() error
	Context() context.Context
	Token(ctx context.Context) (int64, error)
	Guard() framework.Op
	Release(ctx context.Context) error
}

// Path returns our lock node's path (namespace-relative), for example
// "/locks/orders/_c_<uuid>-lock-0000000007".
func (n *node) Path() string { return n.path }

// SessionID returns the ZooKeeper session that owns our node (its ephemeral owner). The
// lease ends when that session may be gone; logs can tie a loss to the session that ended.
func (n *node) SessionID() int64 { return n.sess }

// NodeName returns the last segment of the node's path, as Curator's Lease.getNodeName.
func (n *node) NodeName() string { return path.Base(n.path) }

// Token returns the fencing token: the czxid of our lock node, a 64-bit transaction id that
// grows with every new node across the ensemble, even when the lock directory is reaped and
// recreated. Pass it to the resource you protect and have it refuse tokens lower than the
// highest it has seen. It is usually known at acquire time for free; otherwise the first call
// reads our node's stat under ctx. A node that is gone returns an error wrapping
// framework.ErrNoNode: the lock is not held. (A downgraded read reuses its writer's sequence
// but has a czxid of its own, created after writers that were already queued: its token does
// not order it against them.)
func (n *node) Token(ctx context.Context) (int64, error) { return n.token.value(ctx) }

// Done returns a channel that closes when the lease ends: released, or its session suspended
// or lost per the framework's error policy. Like Err, every call first asks the session epoch,
// which checks its deadline (one clock reading while held): after a pause past the deadline,
// `select { case <-lease.Done(): ... default: }` reports the loss on its first call, before the
// runtime has run any timer.
func (n *node) Done() <-chan struct{} {
	n.poll()
	return n.ctx.Done()
}

// poll ends a held lease at once if its session epoch has ended or is past its deadline.
func (n *node) poll() {
	select {
	case <-n.ctx.Done():
		return
	default:
	}
	select {
	case <-n.session.Done():
		n.lose(n.session.Err()) // the epoch ended and its callback has not run yet: tell now
	default:
	}
}

// Err returns nil while the lease is held; afterwards ErrReleased, or ErrLockLost wrapping
// the session's reason (framework.ErrSuspended, framework.ErrSessionLost, framework.ErrClosed).
// It asks the session epoch synchronously, so it reports a loss as soon as the framework
// knows of it, before Done's callback has run; and the epoch (framework.Session.Err) compares
// the time since the framework last heard from ZooKeeper with the point where the connection is
// given up: past it, the lease is lost at once, even right after the process resumed from a
// pause and before go-zookeeper has noticed. Check Err right before each write: a write begun
// before a pause is what the fencing token (Token) is for.
func (n *node) Err() error {
	if n.ctx.Err() == nil {
		err := n.session.Err()
		if err == nil {
			return nil
		}
		n.lose(err) // the epoch ended and its callback has not run yet: tell now
	}
	return context.Cause(n.ctx)
}

// Context returns a context that is cancelled when the lease ends, with Err's value as its
// cause: a parent for work that must stop with the lock. Its Done and Err check the session's
// deadline first, as the lease's Done does (see framework.WithCheck).
func (n *node) Context() context.Context { return framework.WithCheck(n.ctx, n.poll) }

// Guard returns a check operation on our lock node. Put it first in a framework Multi so that
// the transaction commits only while our node exists.
func (n *node) Guard() framework.Op { return framework.CheckOp(n.path, -1) }

// Data reads the data stored in our node, as Curator's Lease.getData. A node that is gone
// returns an error wrapping framework.ErrNoNode.
func (n *node) Data(ctx context.Context) ([]byte, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	data, _, err := n.fw.Get(ctx, n.path)
	return data, err
}

// Lease is a held, reentrant lock: the handle that Acquire returns and that its owner
// releases. Reentrancy is counted on the handle, never on goroutine identity: whoever holds
// the *Lease may Reenter or Release it, from any goroutine. Safe for concurrent use.
//
// When Done closes another process may hold the lock: stop acting on it, then Release. While
// the session lives, the node stays until Release or until the loss grace has passed
// (WithLossGrace, default the session timeout), so that a connection blip never hands the lock
// over while the told holder is still stopping. Release of a lost lease returns nil at once.
type Lease struct {
	*node

	mu    sync.Mutex
	count int // acquisitions not yet released; 0 once fully released
}

// newLease wraps a grant of owner's in a lease with one acquisition.
func newLease(owner *Lock, g grant) *Lease {
	return &Lease{node: newNode(owner, g), count: 1}
}

// Reenter counts one more acquisition of a lease that is still held, with no ZooKeeper
// traffic: each Reenter needs its own Release. A released lease returns ErrNotHeld, a lost
// one its Err.
func (l *Lease) Reenter() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == 0 {
		return fmt.Errorf("%w: %s", ErrNotHeld, l.path)
	}
	if err := l.Err(); err != nil {
		return err
	}
	l.count++
	return nil
}

// Release gives back one acquisition. The last one deletes our node with a guaranteed delete
// bounded by ctx (if ctx ends first, the delete goes on in the background and the error says
// so). The last Release of a lost lease, or after the framework closed, returns nil at once and
// leaves the delete to the background. Releasing more often than acquired returns ErrNotHeld.
func (l *Lease) Release(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	last, err := l.releaseOne()
	if !last {
		return err
	}
	return l.release(ctx)
}

// releaseOne counts one release, and reports whether it was the last (the node must go).
func (l *Lease) releaseOne() (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == 0 {
		return false, fmt.Errorf("%w: %s", ErrNotHeld, l.path)
	}
	l.count--
	return l.count == 0, nil
}

// discard releases every acquisition of l as a cleanup (see node.discard): never past ctx, the
// delete going on in the background.
func (l *Lease) discard(ctx context.Context) {
	l.mu.Lock()
	had := l.count > 0
	l.count = 0
	l.mu.Unlock()
	if had {
		l.node.discard(ctx)
	}
}

// outstanding reports whether l has acquisitions not yet released (it may have been lost).
func (l *Lease) outstanding() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count > 0
}

// SemaphoreLease is one lease of a semaphore: it cannot be re-entered; Release gives it back
// once. Safe for concurrent use; see Lease for Done, the token and loss.
type SemaphoreLease struct {
	*node
	once atomic.Bool
}

// Release deletes the lease's node with a guaranteed delete bounded by ctx (see
// Lease.Release). A second Release returns ErrNotHeld.
func (s *SemaphoreLease) Release(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	if !s.once.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: %s", ErrNotHeld, s.path)
	}
	return s.release(ctx)
}
