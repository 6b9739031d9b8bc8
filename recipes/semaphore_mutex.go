package recipes

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// InterProcessSemaphoreMutex is a distributed mutex that is NOT reentrant: a semaphore of one
// lease, with the layout of InterProcessSemaphoreV2 (P/locks and P/leases), as Curator's
// InterProcessSemaphoreMutex. A second Acquire blocks even from the holder. Do not use it on
// the same path as an InterProcessMutex.
//
// The lock may be released through the lease or through Release, from any goroutine; Release
// when it is not held returns ErrNotHeld. Safe for concurrent use.
type InterProcessSemaphoreMutex struct {
	sem *InterProcessSemaphoreV2

	mu    sync.Mutex
	lease *SemaphoreLease // the lease held through this object, or nil
}

// NewSemaphoreMutex returns a semaphore mutex on path. It does no I/O.
func NewSemaphoreMutex(fw *framework.Framework, path string, opts ...SemaphoreOption) (*InterProcessSemaphoreMutex, error) {
	sem, err := NewSemaphore(fw, path, 1, opts...)
	if err != nil {
		return nil, err
	}
	return &InterProcessSemaphoreMutex{sem: sem}, nil
}

// Path returns the lock directory.
func (m *InterProcessSemaphoreMutex) Path() string { return m.sem.path }

// Acquire blocks until the lock is held and returns its lease. When ctx ends first, ctx's
// error is returned at once and its nodes are deleted in the background (guaranteed deletes).
func (m *InterProcessSemaphoreMutex) Acquire(ctx context.Context) (*SemaphoreLease, error) {
	return m.take(m.sem.Acquire(ctx, 1))
}

// TryAcquire takes the lock only if it is free now; otherwise it returns ErrLocked.
func (m *InterProcessSemaphoreMutex) TryAcquire(ctx context.Context) (*SemaphoreLease, error) {
	return m.take(m.sem.TryAcquire(ctx, 1))
}

// Hold is Acquire for InterProcessMultiLock (Locker).
func (m *InterProcessSemaphoreMutex) Hold(ctx context.Context) (Held, error) {
	return held(m.Acquire(ctx))
}

// take records the lease of a successful acquire.
func (m *InterProcessSemaphoreMutex) take(leases []*SemaphoreLease, err error) (*SemaphoreLease, error) {
	if err != nil {
		return nil, err
	}
	l := leases[0]
	m.mu.Lock()
	m.lease = l
	m.mu.Unlock()
	return l, nil
}

// Release releases the lease taken through this object, from any goroutine. It returns
// ErrNotHeld when no lease is held.
func (m *InterProcessSemaphoreMutex) Release(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	m.mu.Lock()
	l := m.lease
	m.lease = nil
	m.mu.Unlock()
	if l == nil || l.once.Load() {
		return fmt.Errorf("%w: %s", ErrNotHeld, m.sem.path)
	}
	return l.Release(ctx)
}

// IsAcquired reports whether a lease taken through this object is held (it may have been
// lost: see the lease's Done).
func (m *InterProcessSemaphoreMutex) IsAcquired() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lease != nil && !m.lease.once.Load()
}

// Participants lists the lease nodes (at most one holder, plus a waiter whose lease is not
// yet granted), with their data.
func (m *InterProcessSemaphoreMutex) Participants(ctx context.Context) ([]Participant, error) {
	return m.sem.Participants(ctx)
}
