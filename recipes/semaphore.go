package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// Sub-directories of a semaphore, as Curator's InterProcessSemaphoreV2.
const (
	semaphoreLocks  = "locks"
	semaphoreLeases = "leases"
)

// InterProcessSemaphoreV2 is a distributed counting semaphore with the znode layout of
// Curator's InterProcessSemaphoreV2: an internal mutex P/locks/_c_<uuid>-lock-<seq> and
// leases P/leases/_c_<uuid>-lease-<seq>.
//
// To take a lease, a contender takes the internal mutex, creates its lease node, and waits,
// watching the leases directory, until the directory holds at most the maximum number of
// children (its own included, whatever their names); it releases the internal mutex in every
// case. Only the mutex holder watches the directory, so a release wakes one process, not the
// herd. Both are Locks: the internal mutex with the Exclusive driver, the leases with the
// Semaphore (or SharedSemaphore) driver.
//
// The maximum is a convention among the processes: each checks against its own value. It is
// a fixed number (NewSemaphore) or read from a shared count node (NewSharedSemaphore, see
// SharedCount) that wakes the waiter when it changes. Lowering the maximum never revokes
// leases already held. The semaphore is safe for concurrent use.
type InterProcessSemaphoreV2 struct {
	fw        *framework.Framework
	path      string
	max       int    // fixed maximum, or 0 with countPath
	countPath string // shared count node, or ""
	mutex     *Lock  // P/locks
	leases    *Lock  // P/leases; its driver is chosen per Acquire
}

// SemaphoreOption configures an InterProcessSemaphoreV2.
type SemaphoreOption = LockOption

// WithLeaseData sets the data stored in each lease node (default: as for WithNodeData).
func WithLeaseData(data []byte) SemaphoreOption { return WithNodeData(data) }

// NewSemaphore returns a semaphore on path with a fixed maximum number of leases; a maximum
// below 1 is ErrInvalidArgument. It does no I/O.
func NewSemaphore(fw *framework.Framework, path string, max int, opts ...SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	if max < 1 {
		return nil, fmt.Errorf("%w: semaphore maximum %d, want at least 1", ErrInvalidArgument, max)
	}
	return newSemaphore(fw, path, max, "", driver.Semaphore(max), opts)
}

// NewSharedSemaphore returns a semaphore on path whose maximum is read from the node
// countPath, in Curator's SharedCount encoding (see SharedCount). One data watch on the count
// serves every Acquire of this semaphore object; a change wakes a waiter (CURATOR-75). A
// missing count node fails the acquire with ErrInvalidArgument, a malformed one with
// driver.ErrBadCount, and a count below the number of leases asked for with
// driver.ErrCountTooLow. It does no I/O.
func NewSharedSemaphore(fw *framework.Framework, path, countPath string, opts ...SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	return newSemaphore(fw, path, 0, countPath, driver.SharedSemaphore(countPath, 1), opts)
}

func newSemaphore(fw *framework.Framework, p string, max int, countPath string, drv driver.Driver, opts []SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	if err := validateLockPath(p); err != nil {
		return nil, err
	}
	leases, err := NewLock(fw, path.Join(p, semaphoreLeases), drv, kindLast(opts, KindLease)...)
	if err != nil {
		return nil, err
	}
	mutex, err := NewLock(fw, path.Join(p, semaphoreLocks), driver.Exclusive(), WithKind(KindSemaphoreLock))
	if err != nil {
		return nil, err
	}
	return &InterProcessSemaphoreV2{fw: fw, path: p, max: max, countPath: countPath, mutex: mutex, leases: leases}, nil
}

// Path returns the semaphore's directory.
func (s *InterProcessSemaphoreV2) Path() string { return s.path }

// Acquire takes n leases under ctx as the one deadline for all of them. If it fails (ctx
// ended, an error) it deletes every lease node it had already taken, and its internal mutex
// node: before returning while ctx is live, else at once in the background (guaranteed
// deletes, going on while the framework is open). n below
// 1, or above a fixed maximum, is ErrInvalidArgument. A lease node that vanishes while we wait
// (session expiry, an external delete) is replaced under the framework's retry policy,
// internal mutex included.
//
// Unlike Curator, which takes and releases the internal mutex once per lease, Acquire holds
// the internal mutex until all n leases are taken: two multi-lease acquirers can then never
// each hold part of what they need and wait for each other for ever. (A Java multi-lease
// acquirer on the same path still takes one lease per mutex hold, and can still deadlock
// with us.)
func (s *InterProcessSemaphoreV2) Acquire(ctx context.Context, n int) ([]*SemaphoreLease, error) {
	return s.acquire(ctx, n, false)
}

// TryAcquire takes n leases only if they are free at once; otherwise it returns ErrLocked
// (also when another acquirer holds the internal mutex, which it does while it waits).
func (s *InterProcessSemaphoreV2) TryAcquire(ctx context.Context, n int) ([]*SemaphoreLease, error) {
	return s.acquire(ctx, n, true)
}

func (s *InterProcessSemaphoreV2) acquire(ctx context.Context, n int, try bool) ([]*SemaphoreLease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if n < 1 || (s.countPath == "" && n > s.max) {
		return nil, fmt.Errorf("%w: %d leases from a semaphore of %s", ErrInvalidArgument, n, s.maxString())
	}
	drv := s.leases.drv
	if s.countPath != "" {
		drv = driver.SharedSemaphore(s.countPath, n)
	}
	start := time.Now()
	grants := make([]grant, 0, n)
	err := retry.Do(ctx, s.fw.RetryPolicy(), classifyLease, func(ctx context.Context) error {
		grants = s.dropEnded(ctx, grants)
		return s.attempt(ctx, drv, n, try, &grants)
	})
	if err != nil {
		for _, g := range grants {
			s.leases.abandon(ctx, g.path)
		}
		return nil, fmt.Errorf("recipes: acquire lease %s: %w", s.path, err)
	}
	leases := make([]*SemaphoreLease, len(grants))
	for i, g := range grants {
		s.leases.event(eventAcquired, g.path, time.Since(start), nil)
		leases[i] = newSemaphoreLease(s.leases, g)
	}
	return leases, nil
}

// errRequeue marks an attempt that must start again from the internal mutex: a granted lease
// whose session ended before all n were taken, or an internal mutex lost while we waited for
// leases. It is the only failure the semaphore retries itself (the loop's own retries are
// already done).
var errRequeue = errors.New("recipes: semaphore acquire must queue again")

func classifyLease(err error) retry.Class {
	if errors.Is(err, errRequeue) {
		return retry.Retryable
	}
	return retry.Permanent
}

// attempt holds the internal mutex while lease nodes are created and waited on until grants
// holds n, and releases it in every case. The wait for leases lasts only as long as the
// internal mutex's lease: once that may be lost another contender may take the mutex and queue
// in leases/ beside us, and two waiters there can starve a semaphore of one for ever. So the
// attempt ends, drops its waiting node, and the acquire queues again from the mutex.
func (s *InterProcessSemaphoreV2) attempt(ctx context.Context, drv driver.Driver, n int, try bool, grants *[]grant) error {
	ml, err := s.mutex.acquireLease(ctx, s.mutex.drv, try)
	if err != nil {
		return err
	}
	defer ml.discard(ctx)
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(ml.Context(), func() { cancel(context.Cause(ml.Context())) })
	defer stop()
	for len(*grants) < n {
		g, err := s.leases.acquire(wctx, drv, try)
		if err != nil {
			if ctx.Err() == nil && ml.Err() != nil {
				return fmt.Errorf("%w: the internal mutex %s: %w", errRequeue, ml.Path(), ml.Err())
			}
			return err
		}
		*grants = append(*grants, g)
	}
	if err := ml.Err(); err != nil {
		return fmt.Errorf("%w: the internal mutex %s: %w", errRequeue, ml.Path(), err)
	}
	for _, g := range *grants {
		if g.session.Err() != nil {
			return fmt.Errorf("%w: %s: %w", errRequeue, g.path, g.session.Err())
		}
	}
	return nil
}

// dropEnded forgets (and deletes, in case) the grants whose session epoch ended: their
// ephemeral nodes are gone or going.
func (s *InterProcessSemaphoreV2) dropEnded(ctx context.Context, grants []grant) []grant {
	kept := grants[:0]
	for _, g := range grants {
		if g.session.Err() != nil {
			s.leases.abandon(ctx, g.path)
			continue
		}
		kept = append(kept, g)
	}
	return kept
}

// newSemaphoreLease wraps a lease grant.
func newSemaphoreLease(owner *Lock, g grant) *SemaphoreLease {
	return &SemaphoreLease{node: newNode(owner, g)}
}

// ReturnAll releases leases in reverse order, going on past errors, and returns them joined,
// as Curator's returnAll. ctx bounds each release as for Release.
func (s *InterProcessSemaphoreV2) ReturnAll(ctx context.Context, leases []*SemaphoreLease) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	var errs []error
	for i := len(leases) - 1; i >= 0; i-- {
		if leases[i] == nil {
			errs = append(errs, fmt.Errorf("%w: nil lease", ErrInvalidArgument))
			continue
		}
		if err := leases[i].Release(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Participants lists the lease nodes in sequence order, with their data.
func (s *InterProcessSemaphoreV2) Participants(ctx context.Context) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, s.fw, s.leases.path, driver.Semaphore(1), "")
}

// IsAcquiredInThisProcess reports whether a lease taken through this semaphore is held.
func (s *InterProcessSemaphoreV2) IsAcquiredInThisProcess() bool {
	return s.leases.IsAcquiredInThisProcess()
}

func (s *InterProcessSemaphoreV2) maxString() string {
	if s.countPath != "" {
		return "shared maximum " + s.countPath
	}
	return fmt.Sprintf("maximum %d", s.max)
}
