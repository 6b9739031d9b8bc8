package recipes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Locker is a lock that InterProcessMultiLock can take: Lock (with any driver, yours
// included), InterProcessMutex, ReadLock, WriteLock and InterProcessSemaphoreMutex satisfy it.
type Locker interface {
	// Path returns the lock directory; a multi-lock orders its locks by it.
	Path() string
	// Hold blocks until the lock is held or ctx ends, like the lock's Acquire.
	Hold(ctx context.Context) (Held, error)
}

// InterProcessMultiLock takes a set of locks as one: all of them or none.
//
// Unlike Curator's InterProcessMultiLock, which takes the locks in list order
// and gives each the full timeout, it takes them in a canonical order (sorted
// by path, byte-wise), so two processes naming the same locks in different
// orders cannot deadlock, and ctx's deadline covers the whole set. Paths are
// compared as given (namespace-relative): give every lock of a set the same
// framework namespace.
//
// NewTxMultiLock builds the transactional mode instead: the whole set queued in
// one ZooKeeper transaction, no sorting; never mix the two modes (or Curator's
// multi-lock) on the same paths (docs/multilock.md).
//
// The multi-lock holds configuration only and is safe for concurrent use;
// each Acquire is a new contender for every lock.
type InterProcessMultiLock struct {
	locks []Locker // sorted by path; in the caller's order when transactional
	tx    []*Lock  // the locks of a transactional multi-lock (NewTxMultiLock), else nil
}

// NewMultiLock returns a multi-lock over locks. An empty set, a nil lock, two
// locks with the same path, or a path nested inside another is
// ErrInvalidArgument.
func NewMultiLock(locks ...Locker) (*InterProcessMultiLock, error) {
	if len(locks) == 0 {
		return nil, fmt.Errorf("%w: empty multi-lock", ErrInvalidArgument)
	}
	if slices.Contains(locks, nil) {
		return nil, fmt.Errorf("%w: nil lock in a multi-lock", ErrInvalidArgument)
	}
	sorted := slices.Clone(locks)
	slices.SortStableFunc(sorted, func(a, b Locker) int { return strings.Compare(a.Path(), b.Path()) })
	for i := range sorted {
		for _, other := range sorted[i+1:] {
			if err := checkDisjoint(sorted[i].Path(), other.Path()); err != nil {
				return nil, err
			}
		}
	}
	return &InterProcessMultiLock{locks: sorted}, nil
}

// NewMultiMutex returns a multi-lock of one new InterProcessMutex per path,
// as Curator's InterProcessMultiLock(client, paths).
//
// It stays sequential (NewTxMultiMutex is the transactional one) so that it never mixes badly
// with Curator's InterProcessMultiLock or an older zkrecipes on the same paths: see
// docs/multilock.md.
func NewMultiMutex(fw *framework.Framework, paths ...string) (*InterProcessMultiLock, error) {
	locks, err := mutexes(fw, paths)
	if err != nil {
		return nil, err
	}
	return NewMultiLock(locks...)
}

// mutexes returns one new InterProcessMutex per path.
func mutexes(fw *framework.Framework, paths []string) ([]Locker, error) {
	locks := make([]Locker, 0, len(paths))
	for _, p := range paths {
		m, err := NewMutex(fw, p)
		if err != nil {
			return nil, err
		}
		locks = append(locks, m)
	}
	return locks, nil
}

// checkDisjoint refuses equal paths and a path nested in the other. It runs
// on every pair: in byte order "/a" < "/a-x" < "/a/b", so a nested pair need
// not be neighbours.
func checkDisjoint(a, b string) error {
	switch {
	case a == b:
		return fmt.Errorf("%w: path %s appears twice in a multi-lock", ErrInvalidArgument, a)
	case strings.HasPrefix(b, a+"/"), strings.HasPrefix(a, b+"/"):
		return fmt.Errorf("%w: %s and %s are nested in a multi-lock", ErrInvalidArgument, a, b)
	}
	return nil
}

// Paths returns the lock paths in the order they are taken (a transactional multi-lock: the order
// given).
func (m *InterProcessMultiLock) Paths() []string {
	out := make([]string, len(m.locks))
	for i, l := range m.locks {
		out[i] = l.Path()
	}
	return out
}

// Acquire takes every lock in path order under ctx's one deadline. If one
// cannot be taken (ctx ended, an error), the ones already taken are released
// in reverse order before the error is returned (joined with any release
// errors), so none is held afterwards. It never returns a set with a lost
// member: when a lock already taken is lost while it waits for the next
// (a connection blip, its node deleted), it releases the set and queues
// again from the first lock, under the same deadline. A transactional multi-lock queues the
// set in one transaction and waits until every lock is held; on failure its
// nodes are deleted (in one transaction where it can) before it returns, and
// on session expiry the whole set is queued again under the same deadline.
// The cleanup never outlasts ctx: once ctx has ended Acquire returns at once
// and the deletes go on in the background (guaranteed deletes).
func (m *InterProcessMultiLock) Acquire(ctx context.Context) (*MultiLease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if m.tx != nil {
		return m.acquireTx(ctx, false)
	}
	return m.acquireSeq(ctx)
}

// MultiLease is a held multi-lock: one lease per lock, in the order taken.
// Safe for concurrent use.
type MultiLease struct {
	mu       sync.Mutex
	leases   []Held
	fw       *framework.Framework // a transactional set's, else nil
	released bool
	ctx      context.Context // ends with the first lease that ends
	checked  context.Context // ctx, polling the leases first (Context)
	cancel   context.CancelCauseFunc
}

// watchLeases ends ml's context, with that lease's cause, as soon as any
// lease ends: context.AfterFunc, so no goroutine waits meanwhile.
func (ml *MultiLease) watchLeases() {
	ml.ctx, ml.cancel = context.WithCancelCause(context.Background())
	ml.checked = framework.WithCheck(ml.ctx, ml.poll)
	for _, l := range ml.leases {
		context.AfterFunc(l.Context(), func() { ml.cancel(context.Cause(l.Context())) })
	}
}

// Done returns a channel that closes when any of the leases ends: released,
// or its session suspended or lost. Then the set is no longer held as a whole. Every call
// first asks each lease's Done (a clock reading each), so that it reports a loss past the
// deadline on its first call after a pause, as Err does.
func (ml *MultiLease) Done() <-chan struct{} {
	ml.poll()
	return ml.ctx.Done()
}

// Context returns a context that ends with Done, with Err's value as cause; its Done and Err
// poll the leases first, as Done does.
func (ml *MultiLease) Context() context.Context { return ml.checked }

// poll ends the set at once, with that lease's cause, if one of its leases has ended.
func (ml *MultiLease) poll() {
	select {
	case <-ml.ctx.Done():
		return
	default:
	}
	for _, l := range ml.leases {
		select {
		case <-l.Done():
			ml.cancel(l.Err())
			return
		default:
		}
	}
}

// Leases returns the leases in the order they were taken (path order; a transactional set: the
// order given).
func (ml *MultiLease) Leases() []Held { return slices.Clone(ml.leases) }

// Err returns nil while every lease is held, else the reason of the first
// lease that ended (ErrReleased, or ErrLockLost with the session's reason). It asks each
// lease's Err, so a session silent past its deadline ends the set at once (see Lease.Err).
func (ml *MultiLease) Err() error {
	if ml.ctx.Err() == nil {
		for _, l := range ml.leases {
			if err := l.Err(); err != nil {
				ml.cancel(err)
				break
			}
		}
	}
	if ml.ctx.Err() == nil {
		return nil
	}
	return context.Cause(ml.ctx)
}

// Guard returns a check operation on every lock node of the set: put them first in a framework
// Multi so that the transaction commits only while every node exists.
func (ml *MultiLease) Guard() []framework.Op {
	ops := make([]framework.Op, len(ml.leases))
	for i, l := range ml.leases {
		ops[i] = l.Guard()
	}
	return ops
}

// Tokens returns the fencing token of every lock (see Lease.Token), in Leases' order.
func (ml *MultiLease) Tokens(ctx context.Context) ([]int64, error) {
	out := make([]int64, len(ml.leases))
	for i, l := range ml.leases {
		t, err := l.Token(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// Release releases every lease in reverse order, going on past errors, and
// returns all errors joined; a transactional set deletes its nodes in one
// transaction. A second Release returns ErrNotHeld.
func (ml *MultiLease) Release(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	ml.mu.Lock()
	done := ml.released
	ml.released = true
	ml.mu.Unlock()
	if done {
		return fmt.Errorf("%w: multi-lock already released", ErrNotHeld)
	}
	var err error
	if ml.fw != nil {
		err = ml.releaseTx(ctx)
	} else {
		err = releaseAll(ctx, ml.leases)
	}
	if ml.cancel != nil { // nil while Acquire is still rolling back a partial set
		ml.cancel(fmt.Errorf("%w: multi-lock", ErrReleased))
	}
	return err
}

// releaseAll releases leases in reverse order, going on past errors, and returns them joined.
// Each release is bounded by ctx: once it ends, our leases leave their deletes to the
// background at once.
func releaseAll(ctx context.Context, leases []Held) error {
	var errs []error
	for i := len(leases) - 1; i >= 0; i-- {
		if err := leases[i].Release(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rollback releases the locks a failed Acquire had taken, as a cleanup bounded as
// cleanupContext says (never past ctx: a cancelled acquire returns at once), the deletes going on
// in the background past it. Only errors other than running out of that time are returned.
func (ml *MultiLease) rollback(ctx context.Context) error {
	ml.released = true
	rctx, cancel := context.WithTimeout(ctx, cleanupWait) // one bound for the whole set
	defer cancel()
	var errs []error
	for i := len(ml.leases) - 1; i >= 0; i-- {
		if d, ok := ml.leases[i].(discarder); ok {
			d.discard(rctx)
			continue
		}
		if err := ml.leases[i].Release(rctx); err != nil && rctx.Err() == nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// discarder is a lease of ours, whose cleanup knows its framework's connection state.
type discarder interface{ discard(ctx context.Context) }
