package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Lease is a held lock: the handle that Acquire returns and that its owner
// releases. Reentrancy is counted on the lease, never on goroutine identity:
// whoever holds the *Lease (or a context carrying it, see WithLease) may
// re-enter or release it. A Lease is safe for concurrent use.
//
// A lease watches its session: when the framework's error policy says the
// session may be gone (Suspended or Lost under the Standard policy, Lost only
// under the Session policy), Done closes and Err reports ErrLockLost with the
// reason. From then on another process may hold the lock; stop acting on it.
type Lease struct {
	owner any // the lock object this lease belongs to
	fw    *framework.Framework
	path  string
	token *token

	ctx       context.Context
	cancel    context.CancelCauseFunc
	stopWatch func() bool // detaches the lease from its session epoch

	mu    sync.Mutex
	count int // acquisitions not yet released; 0 once fully released

	onRelease func() // optional: run once after the last release (recipe bookkeeping)
}

// newLease ties the lease to g's session epoch: when the epoch ends the
// lease's context is cancelled with ErrLockLost. context.AfterFunc does it, so
// no goroutine waits for the epoch while the lock is held.
func newLease(owner any, fw *framework.Framework, g grant, watchOwn func(*Lease)) *Lease {
	ctx, cancel := context.WithCancelCause(context.Background())
	l := &Lease{
		owner: owner, fw: fw, path: g.path, token: g.token,
		ctx: ctx, cancel: cancel, count: 1,
	}
	sess := g.session
	l.stopWatch = context.AfterFunc(sess.Context(), func() {
		l.cancel(fmt.Errorf("%w: %s: %w", ErrLockLost, l.path, sess.Err()))
	})
	if watchOwn != nil {
		go watchOwn(l)
	}
	return l
}

// Path returns our lock node's path (namespace-relative), for example
// "/locks/orders/_c_<uuid>-lock-0000000007".
func (l *Lease) Path() string { return l.path }

// Token returns the fencing token: the czxid of our lock node. It is a 64-bit
// transaction id that grows with every new holder across the ensemble, even
// when the lock directory is reaped and recreated. Pass it to the resource
// you protect and have it refuse tokens lower than the highest it has seen.
//
// The token is usually known at acquire time for free (see the package
// doc); when the lock was busy, the first call reads our node's stat once,
// bounded by the framework's retry policy and 10 s. It returns 0, which no
// resource should accept, if the node could not be read: it is gone, so the
// lock is not held.
func (l *Lease) Token() int64 { return l.token.value() }

// Done returns a channel that closes when the lease ends: released, or its
// session suspended or lost per the framework's error policy.
func (l *Lease) Done() <-chan struct{} { return l.ctx.Done() }

// Err returns nil while the lease is held; afterwards ErrReleased, or
// ErrLockLost wrapping the session's reason (framework.ErrSuspended,
// framework.ErrSessionLost, framework.ErrClosed).
func (l *Lease) Err() error {
	if l.ctx.Err() == nil {
		return nil
	}
	return context.Cause(l.ctx)
}

// Context returns a context that is cancelled when the lease ends, with
// Err's value as its cause: a parent for work that must stop with the lock.
func (l *Lease) Context() context.Context { return l.ctx }

// Guard returns a check operation on our lock node. Put it first in a
// framework Multi so that the transaction commits only while our node exists.
func (l *Lease) Guard() framework.Op { return framework.CheckOp(l.path, -1) }

// Reenter counts one more acquisition of a lease that is still held. It
// costs no ZooKeeper traffic; each Reenter needs its own Release.
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

// Release gives back one acquisition. The last release deletes our node with
// a guaranteed delete (retried in the background while the framework is
// open) and reports the first delete error; the lease is released either
// way. The delete runs on a fresh context bounded at 10 s, not on ctx: a
// cancelled caller must not leave its lock node behind. Releasing more often
// than acquired returns ErrNotHeld.
func (l *Lease) Release(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	l.mu.Lock()
	if l.count == 0 {
		l.mu.Unlock()
		return fmt.Errorf("%w: %s", ErrNotHeld, l.path)
	}
	l.count--
	last := l.count == 0
	l.mu.Unlock()
	if !last {
		return nil
	}
	l.stopWatch()
	l.cancel(fmt.Errorf("%w: %s", ErrReleased, l.path))
	if l.onRelease != nil {
		l.onRelease()
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	err := l.fw.Delete(cctx, l.path, framework.Guaranteed())
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		return fmt.Errorf("recipes: release %s: %w", l.path, err)
	}
	return nil
}

type leaseKey struct{ owner any }

// WithLease returns a context that carries l. Acquire on the lock that issued
// l, called with this context, re-enters l instead of queueing a new node:
// reentrancy through a context, for call chains that do not pass the lease.
func WithLease(ctx context.Context, l *Lease) context.Context {
	return context.WithValue(ctx, leaseKey{l.owner}, l)
}

// leaseFrom returns the lease for owner that ctx carries, if any.
func leaseFrom(ctx context.Context, owner any) *Lease {
	l, _ := ctx.Value(leaseKey{owner}).(*Lease)
	return l
}
