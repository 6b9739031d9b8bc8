package recipes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// lockBased is a Locker built on one Lock (Lock itself, InterProcessMutex, ReadLock, WriteLock):
// one plain contender node per acquire, which a transactional multi-lock can create in its
// transaction.
type lockBased interface{ baseLock() *Lock }

func (l *Lock) baseLock() *Lock { return l }

// NewTxMultiLock returns a transactional multi-lock over locks: Acquire creates our contender
// node in every lock directory in one ZooKeeper transaction (a multi), then waits until every
// lock's driver says we hold it. ZooKeeper orders transactions totally and applies each
// atomically, so of two such acquirers the one whose transaction committed first is ahead of the
// other in every directory they share: nobody waits for a lock while holding another that its
// waiter needs, whatever order callers name the locks in, and the whole set is queued in one
// write. The locks are kept in the order given (no sorting is needed).
//
// Mixing is the trap: an acquirer that holds one lock while it waits for another (the
// sequential NewMultiLock, Curator's InterProcessMultiLock) can deadlock with a transactional
// one on the same paths. Single-lock contenders (Go or Curator) beside it are safe. See
// docs/multilock.md.
//
// Every lock must be built on a Lock (NewLock with a driver of yours, NewMutex, ReadLock,
// WriteLock) of one framework, whose driver creates one plain sequential node and decides
// without an input node. A semaphore (two nodes per acquire), a driver with a fixed node (a
// downgrade's) or with an input node is ErrNotTransactional; an empty set, nil, two locks on one
// path, nested paths or several frameworks are ErrInvalidArgument.
//
// The multi-lock holds configuration only and is safe for concurrent use.
func NewTxMultiLock(locks ...Locker) (*InterProcessMultiLock, error) {
	if len(locks) == 0 {
		return nil, fmt.Errorf("%w: empty multi-lock", ErrInvalidArgument)
	}
	tx := make([]*Lock, len(locks))
	for i, lk := range locks {
		if lk == nil {
			return nil, fmt.Errorf("%w: nil lock in a multi-lock", ErrInvalidArgument)
		}
		b, ok := lk.(lockBased)
		if !ok {
			return nil, fmt.Errorf("%w: %s (%T) is not built on one Lock", ErrNotTransactional, lk.Path(), lk)
		}
		tx[i] = b.baseLock()
		if err := checkTxDriver(tx[i]); err != nil {
			return nil, err
		}
		if tx[i].fw != tx[0].fw {
			return nil, fmt.Errorf("%w: %s: a transactional multi-lock needs one framework", ErrInvalidArgument, lk.Path())
		}
		for _, other := range tx[:i] {
			if err := checkDisjoint(other.path, tx[i].path); err != nil {
				return nil, err
			}
		}
	}
	return &InterProcessMultiLock{locks: slices.Clone(locks), tx: tx}, nil
}

// TryAcquire takes every lock of a transactional multi-lock only if each is granted at once: the
// set is queued in one transaction as Acquire does, and if the listings taken right behind it
// show any lock not held, the whole set is deleted (in one transaction) before TryAcquire returns
// ErrLocked, naming the first such lock, as Lock.TryAcquire does for one lock (Curator's
// acquire(0)). A sequential multi-lock returns ErrNotTransactional: it would hold some locks
// while finding another busy.
func (m *InterProcessMultiLock) TryAcquire(ctx context.Context) (*MultiLease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if m.tx == nil {
		return nil, fmt.Errorf("%w: TryAcquire needs a transactional multi-lock (NewTxMultiLock)", ErrNotTransactional)
	}
	return m.acquireTx(ctx, true)
}

// NewTxMultiMutex returns a transactional multi-lock (NewTxMultiLock) of one new
// InterProcessMutex per path.
func NewTxMultiMutex(fw *framework.Framework, paths ...string) (*InterProcessMultiLock, error) {
	locks, err := mutexes(fw, paths)
	if err != nil {
		return nil, err
	}
	return NewTxMultiLock(locks...)
}

// checkTxDriver refuses a driver whose contender is not one plain sequential node.
func checkTxDriver(l *Lock) error {
	if err := checkTxSticky(l); err != nil {
		return err
	}
	if l.drv.Node().Fixed != "" {
		return fmt.Errorf("%w: %s: the driver creates a fixed node", ErrNotTransactional, l.path)
	}
	if in, ok := l.drv.(driver.InputDriver); ok && in.Input() != "" {
		return fmt.Errorf("%w: %s: the driver decides from an input node", ErrNotTransactional, l.path)
	}
	return nil
}

// acquireTx is Acquire of a transactional multi-lock: the set is queued in one transaction; if
// our session expires or one of our nodes vanishes, what is left is deleted and the whole set
// queued again, under ctx's one deadline and the framework's retry policy.
func (m *InterProcessMultiLock) acquireTx(ctx context.Context, try bool) (*MultiLease, error) {
	start := time.Now()
	fw := m.tx[0].fw
	var leases []Held
	err := retry.Do(ctx, fw.RetryPolicy(), classifyAttempt, func(ctx context.Context) error {
		var err error
		leases, err = m.txAttempt(ctx, start, try)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recipes: multi-lock %s: %w", strings.Join(m.Paths(), ","), err)
	}
	ml := &MultiLease{leases: leases, fw: fw}
	ml.watchLeases()
	return ml, nil
}

// txAttempt is one life of the set: queue it, wait (with try, not at all), and delete what is
// left on failure.
func (m *InterProcessMultiLock) txAttempt(ctx context.Context, start time.Time, try bool) ([]Held, error) {
	s, sess, children, err := m.enqueue(ctx)
	if s == nil {
		return nil, err
	}
	s.try = try
	if err = s.wait(ctx, sess, children, err); err != nil {
		return nil, s.fail(ctx, err)
	}
	return s.leases(start), nil
}

// enqueue creates our node in every lock directory in one transaction, listing the directories
// right behind it.
func (m *InterProcessMultiLock) enqueue(ctx context.Context) (*txSet, *framework.Session, [][]string, error) {
	fw := m.tx[0].fw
	paths, data := make([]string, len(m.tx)), make([][]byte, len(m.tx))
	for i, l := range m.tx {
		paths[i] = childPath(l.path, l.drv.LockName())
		if data[i] = l.drv.Node().Data; data[i] == nil {
			data[i] = l.nodeData()
		}
	}
	sl, err := fw.CreateSetAndList(ctx, paths, data, framework.EphemeralSequential)
	if len(sl.Paths) == 0 {
		return nil, nil, nil, err
	}
	s := &txSet{fw: fw, createdBy: sl.Session.ID(), busy: -1}
	// One transaction created every node: one czxid, so one token (read from the first node if
	// the first listing, the one taken after the create, does not give it away) serves the set.
	var parent *framework.Stat
	if sl.Parents != nil {
		parent = sl.Parents[0]
	}
	tok := tokenFor(fw, sl.Paths[0], true, parent)
	for i, p := range sl.Paths {
		s.cs = append(s.cs, &contender{lock: m.tx[i], drv: m.tx[i].drv, path: p, name: childName(p), createdBy: s.createdBy})
		s.tokens = append(s.tokens, tok)
	}
	return s, sl.Session, sl.Children, ownNodeGone(sl.Paths[0], err)
}

// childName is the last segment of a node path.
func childName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
