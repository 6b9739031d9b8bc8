package recipes

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// InterProcessMutex is a reentrant, fair, distributed mutex with the znode
// layout of Curator's InterProcessMutex: each contender is an ephemeral
// sequential node P/_c_<uuid>-lock-<seq>, and each waiter watches only the
// node just ahead of it. Java processes using Curator 5 can contend on the
// same path.
//
// The mutex object holds configuration only and is safe for concurrent use.
// Each Acquire without a lease in its context is a new contender, so two
// goroutines (or two InterProcessMutex values on one path) exclude each other
// even in one process and one session; reentrancy goes through the Lease.
type InterProcessMutex struct {
	fw   *framework.Framework
	path string
	opts mutexOptions
}

// MutexOption configures an InterProcessMutex.
type MutexOption func(*mutexOptions)

type mutexOptions struct {
	data   []byte
	revoke func(*Lease)
}

// WithNodeData sets the data stored in our lock node (default: the
// framework's default data). Participants reports it.
func WithNodeData(data []byte) MutexOption {
	return func(o *mutexOptions) { o.data = append([]byte{}, data...) }
}

// WithRevocation makes held leases revocable, as Curator's makeRevocable:
// the node is created with empty data, and when someone writes "__REVOKE__"
// to it (see Revoke) fn is called with the lease. Revocation is cooperative:
// fn should arrange for the holder to Release. fn runs on the lease's own
// goroutine and should not block for long.
func WithRevocation(fn func(*Lease)) MutexOption {
	return func(o *mutexOptions) { o.revoke = fn }
}

// NewMutex returns a mutex on path. It does no I/O; the path's nodes are
// created on first Acquire, as containers.
func NewMutex(fw *framework.Framework, path string, opts ...MutexOption) (*InterProcessMutex, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if err := validateLockPath(path); err != nil {
		return nil, err
	}
	m := &InterProcessMutex{fw: fw, path: path}
	for _, o := range opts {
		o(&m.opts)
	}
	return m, nil
}

// Path returns the lock directory.
func (m *InterProcessMutex) Path() string { return m.path }

// Acquire blocks until the lock is held, and returns the lease. If ctx
// carries a lease of this mutex (WithLease), that lease is re-entered
// instead. When ctx ends first, our node is deleted and ctx's error is
// returned; a free lock is taken even if ctx has no time left to wait. A
// waiter whose session expires re-queues with a new node under the same
// deadline.
func (m *InterProcessMutex) Acquire(ctx context.Context) (*Lease, error) {
	return m.acquire(ctx, false)
}

// TryAcquire takes the lock only if it is free now; otherwise it returns
// ErrLocked, having created and deleted a node as Curator's acquire(0) does.
func (m *InterProcessMutex) TryAcquire(ctx context.Context) (*Lease, error) {
	return m.acquire(ctx, true)
}

func (m *InterProcessMutex) acquire(ctx context.Context, try bool) (*Lease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if l := leaseFrom(ctx, m); l != nil {
		if err := l.Reenter(); err != nil {
			return nil, err
		}
		return l, nil
	}
	c := m.contender(try)
	g, err := c.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("recipes: acquire %s: %w", m.path, err)
	}
	return newLease(m, m.fw, g, m.revocationWatcher()), nil
}

func (m *InterProcessMutex) contender(try bool) *contender {
	data := m.opts.data
	if m.opts.revoke != nil {
		data = []byte{} // Curator: revocable nodes carry empty data
	}
	return &contender{
		fw: m.fw, dir: m.path, drv: driver.Exclusive(), data: data,
		shortcut: true, tryOnly: try,
	}
}

func (m *InterProcessMutex) revocationWatcher() func(*Lease) {
	if m.opts.revoke == nil {
		return nil
	}
	fn := m.opts.revoke
	return func(l *Lease) { watchRevocation(l, fn) }
}

// Participants lists the contenders, holder first, with their node data.
func (m *InterProcessMutex) Participants(ctx context.Context) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, m.fw, m.path, driver.Exclusive(), "")
}

// validateLockPath refuses what the framework refuses, and the root: a lock
// directory must be a node of its own.
func validateLockPath(p string) error {
	if p == "/" {
		return fmt.Errorf("%w: %q: a lock cannot live at the root", framework.ErrInvalidPath, p)
	}
	return framework.ValidatePath(p)
}

// checkContext refuses a nil or already finished context before any request.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	return ctx.Err()
}
