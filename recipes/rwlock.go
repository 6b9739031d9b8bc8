package recipes

import (
	"context"
	"fmt"
	"path"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// InterProcessReadWriteLock is a distributed read-write lock with the znode
// layout of Curator's InterProcessReadWriteLock: readers create
// P/_c_<uuid>-__READ__<seq> and writers P/_c_<uuid>-__WRIT__<seq> in the same
// directory, and both sort by their sequence number together.
//
// A writer holds the lock when no node of either kind sorts before it, and
// otherwise watches its immediate predecessor. A reader holds it when no
// writer sorts before it, and otherwise watches the first writer ahead of it;
// writers queued after a reader never block it.
//
// Reentrancy goes through leases, as with InterProcessMutex: Acquire with a
// context carrying a lease of the same lock (WithLease) re-enters it. The
// owner of a write lease may take the read lock (downgrade: pass the write
// lease in the context to ReadLock().Acquire). The read node then takes the
// writer's sequence (Curator 5.5's fix for CURATOR-621), so a writer queued
// behind cannot get in when the write lease is released while the read is
// held. The owner of a read lease asking for the write lock (upgrade) is
// refused at once with ErrUpgrade; Curator would deadlock.
//
// The lock object holds configuration only and is safe for concurrent use.
type InterProcessReadWriteLock struct {
	read  *ReadLock
	write *WriteLock
}

// rwBase is what both halves of a read-write lock share.
type rwBase struct {
	fw   *framework.Framework
	path string
	opts mutexOptions
}

// ReadLock is the shared half of an InterProcessReadWriteLock. Safe for
// concurrent use.
type ReadLock struct {
	rwBase
	rw *InterProcessReadWriteLock
}

// WriteLock is the exclusive half of an InterProcessReadWriteLock. Safe for
// concurrent use.
type WriteLock struct {
	rwBase
	rw *InterProcessReadWriteLock
}

// NewReadWriteLock returns a read-write lock on path. It accepts the mutex
// options: WithNodeData sets the data of both read and write nodes, and
// WithRevocation makes leases of both kinds revocable. It does no I/O.
func NewReadWriteLock(fw *framework.Framework, path string, opts ...MutexOption) (*InterProcessReadWriteLock, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if err := validateLockPath(path); err != nil {
		return nil, err
	}
	base := rwBase{fw: fw, path: path}
	for _, o := range opts {
		o(&base.opts)
	}
	rw := &InterProcessReadWriteLock{}
	rw.read = &ReadLock{rwBase: base, rw: rw}
	rw.write = &WriteLock{rwBase: base, rw: rw}
	return rw, nil
}

// ReadLock returns the shared half of the lock.
func (rw *InterProcessReadWriteLock) ReadLock() *ReadLock { return rw.read }

// WriteLock returns the exclusive half of the lock.
func (rw *InterProcessReadWriteLock) WriteLock() *WriteLock { return rw.write }

// Path returns the lock directory.
func (rw *InterProcessReadWriteLock) Path() string { return rw.read.path }

// Path returns the lock directory (shared with the write lock).
func (r *ReadLock) Path() string { return r.path }

// Path returns the lock directory (shared with the read lock).
func (w *WriteLock) Path() string { return w.path }

// Acquire blocks until the read lock is held and returns the lease. A read
// lease of this lock in ctx is re-entered instead. A held write lease of this
// lock in ctx makes this a downgrade: the read node takes the writer's
// sequence and is granted at once (a write lease that was lost returns its
// Err). When ctx ends first, our node is deleted and ctx's error returned; a
// waiter whose session expires re-queues under the same deadline.
func (r *ReadLock) Acquire(ctx context.Context) (*Lease, error) {
	return r.acquire(ctx, false)
}

// TryAcquire takes the read lock only if no writer is ahead; otherwise it
// returns ErrLocked.
func (r *ReadLock) TryAcquire(ctx context.Context) (*Lease, error) {
	return r.acquire(ctx, true)
}

func (r *ReadLock) acquire(ctx context.Context, try bool) (*Lease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if l := leaseFrom(ctx, r); l != nil {
		return reenter(l)
	}
	c := r.contender(driver.Read(nil), try)
	if w := leaseFrom(ctx, r.rw.write); w != nil && w.outstanding() {
		if err := w.Err(); err != nil {
			return nil, fmt.Errorf("recipes: downgrade %s: %w", r.path, err)
		}
		c.drv = driver.Read(func() bool { return w.Err() == nil })
		c.fixedSeq = driver.KeyAfter(path.Base(w.Path()), driver.WriteLockName)
	}
	g, err := c.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("recipes: acquire read %s: %w", r.path, err)
	}
	return newLease(r, r.fw, g, r.opts.revocationWatcher()), nil
}

// Acquire blocks until the write lock is held and returns the lease. A write
// lease of this lock in ctx is re-entered instead; a held read lease of this
// lock in ctx (and no write lease) is an upgrade, refused with ErrUpgrade
// before any request. When ctx ends first, our node is deleted and ctx's
// error returned; a waiter whose session expires re-queues under the same
// deadline.
func (w *WriteLock) Acquire(ctx context.Context) (*Lease, error) {
	return w.acquire(ctx, false)
}

// TryAcquire takes the write lock only if no node is ahead; otherwise it
// returns ErrLocked.
func (w *WriteLock) TryAcquire(ctx context.Context) (*Lease, error) {
	return w.acquire(ctx, true)
}

func (w *WriteLock) acquire(ctx context.Context, try bool) (*Lease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if l := leaseFrom(ctx, w); l != nil {
		return reenter(l)
	}
	if r := leaseFrom(ctx, w.rw.read); r != nil && r.outstanding() {
		return nil, fmt.Errorf("%w: %s", ErrUpgrade, w.path)
	}
	g, err := w.contender(driver.Write(), try).acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("recipes: acquire write %s: %w", w.path, err)
	}
	return newLease(w, w.fw, g, w.opts.revocationWatcher()), nil
}

// Participants lists the read nodes in sort order, with their data.
func (r *ReadLock) Participants(ctx context.Context) ([]Participant, error) {
	return r.participantsOf(ctx, driver.ReadLockName)
}

// Participants lists the write nodes in sort order (the holder, if a writer
// holds, first), with their data.
func (w *WriteLock) Participants(ctx context.Context) ([]Participant, error) {
	return w.participantsOf(ctx, driver.WriteLockName)
}

// contender is one read or write node's way into the shared directory. The
// handoff shortcut stays off: a downgraded read node is not sequential, so a
// node may appear ahead of a waiter.
func (b *rwBase) contender(drv driver.Driver, try bool) *contender {
	data := b.opts.data
	if b.opts.revoke != nil {
		data = []byte{}
	}
	return &contender{fw: b.fw, dir: b.path, drv: drv, data: data, shortcut: false, tryOnly: try}
}

// participantsOf lists the directory in read-write order, keeping only the
// nodes whose name contains lockName, as Curator's getParticipantNodes.
func (b *rwBase) participantsOf(ctx context.Context, lockName string) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, b.fw, b.path, driver.Write(), lockName)
}

// revocationWatcher returns the lease's revocation watcher, or nil.
func (o mutexOptions) revocationWatcher() func(*Lease) {
	if o.revoke == nil {
		return nil
	}
	fn := o.revoke
	return func(l *Lease) { watchRevocation(l, fn) }
}

// reenter counts one more acquisition of l and returns it.
func reenter(l *Lease) (*Lease, error) {
	if err := l.Reenter(); err != nil {
		return nil, err
	}
	return l, nil
}

// outstanding reports whether l has acquisitions not yet released (it may
// still have been lost).
func (l *Lease) outstanding() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count > 0
}
