package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// InterProcessReadWriteLock is a distributed read-write lock with the znode layout of
// Curator's InterProcessReadWriteLock: readers create P/_c_<uuid>-__READ__<seq> and writers
// P/_c_<uuid>-__WRIT__<seq> in the same directory, and both sort by their sequence number
// together.
//
// A writer holds the lock when no node of either kind sorts before it, and otherwise watches
// its immediate predecessor. A reader holds it when no writer sorts before it, and otherwise
// watches the first writer ahead of it; writers queued after a reader never block it.
//
// Reentrancy goes through leases (Lease.Reenter). The holder of a write lease may take the
// read lock with ReadLock().Downgrade: the read node takes the writer's sequence (Curator
// 5.5's fix for CURATOR-621), so a writer queued behind cannot get in when the write lease is
// released while the read is held. A plain read Acquire through the same lock while this
// process holds its write lease (Curator's downgrade idiom) waits behind that writer until ctx
// ends: the lease may belong to another goroutine, which must still be waited for. There is no
// upgrade: a write Acquire while this process holds a read lease of the lock waits behind it
// (Curator deadlocks the same way); release the read lease first. Both are named rather than
// granted: TryAcquire's *LockedError matches ErrSelfLocked and names the lease, and a blocking
// Acquire warns once through the framework's logger.
//
// The lock and both halves are safe for concurrent use.
type InterProcessReadWriteLock struct {
	read  *ReadLock
	write *WriteLock
}

// ReadLock is the shared half of an InterProcessReadWriteLock: a Lock with the Read driver.
type ReadLock struct{ *Lock }

// WriteLock is the exclusive half of an InterProcessReadWriteLock: a Lock with the Write
// driver.
type WriteLock struct{ *Lock }

// NewReadWriteLock returns a read-write lock on path. It accepts the lock options:
// WithNodeData sets the data of both read and write nodes, and WithRevocation makes leases of
// both kinds revocable. It does no I/O.
func NewReadWriteLock(fw *framework.Framework, path string, opts ...LockOption) (*InterProcessReadWriteLock, error) {
	r, err := NewLock(fw, path, driver.Read(""), kindLast(opts, KindRead)...)
	if err != nil {
		return nil, err
	}
	w, err := NewLock(fw, path, driver.Write(), kindLast(opts, KindWrite)...)
	if err != nil {
		return nil, err
	}
	pairHalves(r, w, true)
	return &InterProcessReadWriteLock{read: &ReadLock{r}, write: &WriteLock{w}}, nil
}

// ReadLock returns the shared half of the lock.
func (rw *InterProcessReadWriteLock) ReadLock() *ReadLock { return rw.read }

// WriteLock returns the exclusive half of the lock.
func (rw *InterProcessReadWriteLock) WriteLock() *WriteLock { return rw.write }

// Path returns the lock directory.
func (rw *InterProcessReadWriteLock) Path() string { return rw.read.path }

// Participants lists the read nodes in sort order, with their data.
func (r *ReadLock) Participants(ctx context.Context) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, r.fw, r.path, r.drv, r.drv.LockName())
}

// Participants lists the write nodes in sort order (the holder, if a writer holds, first),
// with their data.
func (w *WriteLock) Participants(ctx context.Context) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, w.fw, w.path, w.drv, w.drv.LockName())
}

// Downgrade takes the read lock while write, a held write lease of the same read-write lock,
// is still held: the read node takes the writer's sequence and is granted at once, and only
// while the write node is still in the listing that decides. Release the write lease
// afterwards to keep only the read. A write lease of another lock is ErrForeignLease, one
// released (before or during the downgrade) ErrNotHeld, and one that was lost (before or
// during the downgrade: its own state is checked at the grant, not only its node, which a lost
// lease keeps through the loss grace) fails with an error wrapping ErrLockLost; a failed downgrade deletes
// its read node. ctx bounds the call as for Acquire.
func (r *ReadLock) Downgrade(ctx context.Context, write *Lease) (*Lease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	switch {
	case write == nil:
		return nil, fmt.Errorf("%w: nil write lease", ErrInvalidArgument)
	case write.lock.path != r.path || write.lock.drv.LockName() != driver.WriteLockName || write.lock.fw != r.fw ||
		r.drv.LockName() != driver.ReadLockName:
		return nil, fmt.Errorf("%w: %s is not a write lease of %s", ErrForeignLease, write.Path(), r.path)
	case !write.outstanding():
		return nil, fmt.Errorf("%w: %s", ErrNotHeld, write.Path())
	}
	if err := write.Err(); err != nil {
		return nil, fmt.Errorf("recipes: downgrade %s: %w", r.path, err)
	}
	if h := downgradeHook.Load(); h != nil {
		(*h)()
	}
	// The write node in the deciding listing proves only that the node stands: a lease told of
	// a blip (Suspended) keeps its node through the loss grace. So the grant also needs the
	// write lease itself still held, checked right at the grant.
	l, err := r.acquireLeaseIf(ctx, driver.Read(write.NodeName()), false, func() error { return stillHeld(write) })
	if errors.Is(err, driver.ErrWriterMissing) {
		err = writerGone(write, err)
	}
	return l, err
}

// stillHeld refuses a downgrade's grant once its write lease has ended: lost (ErrLockLost,
// with the reason) or released by its owner meanwhile (ErrNotHeld).
func stillHeld(write *Lease) error {
	err := write.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrReleased):
		return fmt.Errorf("%w: %s was released during the downgrade", ErrNotHeld, write.Path())
	}
	return fmt.Errorf("downgrade of a lost write lease: %w", err)
}

// writerGone explains a downgrade that found the write node gone: its owner released the
// write lease meanwhile (ErrNotHeld: nothing was lost), or the lease was lost (ErrLockLost).
// A lease released after it was lost reports the loss, which came first.
func writerGone(write *Lease, err error) error {
	if errors.Is(write.Err(), ErrReleased) {
		return fmt.Errorf("%w: %s was released during the downgrade: %w", ErrNotHeld, write.Path(), err)
	}
	return fmt.Errorf("%w: %w", ErrLockLost, err)
}

// downgradeHook, set only by tests, runs in Downgrade between its checks of the write lease
// and the read node's create: a test releases the write lease there.
var downgradeHook atomic.Pointer[func()]
