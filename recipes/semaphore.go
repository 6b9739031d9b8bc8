package recipes

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// Sub-directories of a semaphore, as Curator's InterProcessSemaphoreV2.
const (
	semaphoreLocks  = "locks"
	semaphoreLeases = "leases"
)

// InterProcessSemaphoreV2 is a distributed counting semaphore with the znode
// layout of Curator's InterProcessSemaphoreV2: an internal mutex
// P/locks/_c_<uuid>-lock-<seq> and leases P/leases/_c_<uuid>-lease-<seq>.
//
// To take a lease, a contender takes the internal mutex, creates its lease
// node, and waits, watching the leases directory, until the directory holds
// at most the maximum number of children (its own included, whatever their
// names); it releases the internal mutex in every case. Only the mutex holder
// watches the directory, so a release wakes one process, not the herd.
//
// The maximum is a convention among the processes: each checks against its
// own value. It is a fixed number (NewSemaphore) or read from a shared count
// node (NewSharedSemaphore) that wakes the waiter when it changes. Lowering
// the maximum never revokes leases already held.
//
// A lease is an ordinary *Lease: Release deletes its node, Done closes when
// its session may be gone, NodeName and Data describe it. The semaphore
// object holds configuration only and is safe for concurrent use.
type InterProcessSemaphoreV2 struct {
	fw        *framework.Framework
	path      string
	max       int    // fixed maximum, or 0 with countPath
	countPath string // shared count node, or ""
	data      []byte
	lock      *InterProcessMutex
}

// SemaphoreOption configures an InterProcessSemaphoreV2.
type SemaphoreOption func(*InterProcessSemaphoreV2)

// WithLeaseData sets the data stored in each lease node (default: the
// framework's default data).
func WithLeaseData(data []byte) SemaphoreOption {
	return func(s *InterProcessSemaphoreV2) { s.data = append([]byte{}, data...) }
}

// NewSemaphore returns a semaphore on path with a fixed maximum number of
// leases; a maximum below 1 is ErrInvalidArgument. It does no I/O.
func NewSemaphore(fw *framework.Framework, path string, max int, opts ...SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	if max < 1 {
		return nil, fmt.Errorf("%w: semaphore maximum %d, want at least 1", ErrInvalidArgument, max)
	}
	return newSemaphore(fw, path, max, "", opts)
}

// NewSharedSemaphore returns a semaphore on path whose maximum is read from
// the node countPath, in Curator's SharedCount encoding (a 4-byte big-endian
// signed integer). The value is re-read whenever it changes while a
// contender waits, and the change wakes it (CURATOR-75). A missing or
// malformed count node fails the acquire with ErrInvalidArgument; a count
// below 1 makes acquirers wait until it is raised. The data watch that an
// acquire sets on countPath stays registered until the count next changes
// (or the session ends), so it shows in framework.Watches. It does no I/O.
func NewSharedSemaphore(fw *framework.Framework, path, countPath string, opts ...SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	if err := framework.ValidatePath(countPath); err != nil {
		return nil, err
	}
	return newSemaphore(fw, path, 0, countPath, opts)
}

func newSemaphore(fw *framework.Framework, p string, max int, countPath string, opts []SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if err := validateLockPath(p); err != nil {
		return nil, err
	}
	lock, err := NewMutex(fw, path.Join(p, semaphoreLocks))
	if err != nil {
		return nil, err
	}
	s := &InterProcessSemaphoreV2{fw: fw, path: p, max: max, countPath: countPath, lock: lock}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Path returns the semaphore's directory.
func (s *InterProcessSemaphoreV2) Path() string { return s.path }

// Acquire takes n leases under ctx as the one deadline for all of them. If
// it fails (ctx ended, an error) it deletes every lease node it had already
// taken before returning. n below 1, or above a fixed maximum, is
// ErrInvalidArgument. A lease node that vanishes while we wait (session
// expiry, an external delete) is replaced under the framework's retry
// policy, internal mutex included.
//
// Unlike Curator, which takes and releases the internal mutex once per lease,
// Acquire holds the internal mutex until all n leases are taken: two
// multi-lease acquirers can then never each hold part of what they need and
// wait for each other for ever. (A Java multi-lease acquirer on the same
// path still takes one lease per mutex hold, and can still deadlock with us.)
func (s *InterProcessSemaphoreV2) Acquire(ctx context.Context, n int) ([]*Lease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	if n < 1 || (s.countPath == "" && n > s.max) {
		return nil, fmt.Errorf("%w: %d leases from a semaphore of %s", ErrInvalidArgument, n, s.maxString())
	}
	grants := make([]grant, 0, n)
	err := retry.Do(ctx, s.fw.RetryPolicy(), classifyLease, func(ctx context.Context) error {
		grants = s.dropEnded(ctx, grants)
		return s.attempt(ctx, n, &grants)
	})
	if err != nil {
		for _, g := range grants {
			s.cleaner().abandon(ctx, g.path)
		}
		return nil, fmt.Errorf("recipes: acquire lease %s: %w", s.path, err)
	}
	leases := make([]*Lease, len(grants))
	for i, g := range grants {
		leases[i] = newLease(s, s.fw, g, nil)
	}
	return leases, nil
}

// errLeaseMissing marks a lease node that vanished while its contender
// waited: the only failure the semaphore retries itself (the internal
// mutex's own retries are already done).
var errLeaseMissing = errors.New("recipes: lease node missing")

func classifyLease(err error) retry.Class {
	if errors.Is(err, errLeaseMissing) {
		return retry.Retryable
	}
	return retry.Permanent
}

// attempt holds the internal mutex while lease nodes are created and waited
// on until grants holds n, and releases it in every case.
func (s *InterProcessSemaphoreV2) attempt(ctx context.Context, n int, grants *[]grant) error {
	ml, err := s.lock.Acquire(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := ml.Release(ctx); rerr != nil {
			s.fw.Logger().Warn("recipes: semaphore internal mutex release failed", "path", ml.Path(), "err", rerr)
		}
	}()
	for len(*grants) < n {
		c := s.cleaner()
		c.drv, c.data = driver.Semaphore(s.max), s.data
		if s.countPath != "" {
			c.refresh = (&sharedMax{fw: s.fw, path: s.countPath}).refresh
		}
		g, err := c.attempt(ctx)
		if errors.Is(err, driver.ErrOwnNodeMissing) {
			return fmt.Errorf("%w: %w", errLeaseMissing, err)
		}
		if err != nil {
			return err
		}
		*grants = append(*grants, g)
	}
	return nil
}

// cleaner returns a contender on the leases directory with no driver yet.
func (s *InterProcessSemaphoreV2) cleaner() *contender {
	return &contender{fw: s.fw, dir: path.Join(s.path, semaphoreLeases)}
}

// dropEnded forgets (and deletes, in case) the grants whose session epoch
// ended: their ephemeral nodes are gone or going.
func (s *InterProcessSemaphoreV2) dropEnded(ctx context.Context, grants []grant) []grant {
	kept := grants[:0]
	for _, g := range grants {
		if g.session.Err() != nil {
			s.cleaner().abandon(ctx, g.path)
			continue
		}
		kept = append(kept, g)
	}
	return kept
}

// Participants lists the lease nodes in sequence order, with their data.
func (s *InterProcessSemaphoreV2) Participants(ctx context.Context) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, s.fw, path.Join(s.path, semaphoreLeases), driver.Semaphore(1), "")
}

func (s *InterProcessSemaphoreV2) maxString() string {
	if s.countPath != "" {
		return "shared maximum " + s.countPath
	}
	return fmt.Sprintf("maximum %d", s.max)
}

// releaseAll releases leases in reverse order, going on past errors, and
// returns them joined.
func releaseAll(ctx context.Context, leases []*Lease) error {
	var errs []error
	for i := len(leases) - 1; i >= 0; i-- {
		if err := leases[i].Release(context.WithoutCancel(ctx)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// NodeName returns the last segment of the lease's node path, as Curator's
// Lease.getNodeName.
func (l *Lease) NodeName() string { return path.Base(l.path) }

// Data reads the data stored in the lease's node, as Curator's Lease.getData.
// A node that is gone returns an error wrapping framework.ErrNoNode.
func (l *Lease) Data(ctx context.Context) ([]byte, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	data, _, err := l.fw.Get(ctx, l.path)
	return data, err
}

// sharedMax reads a semaphore's maximum from a shared count node for one
// contender, keeping a data watch on it: the value is re-read only when the
// watch has fired, and the watch is handed to the wait so that a change
// wakes it.
type sharedMax struct {
	fw   *framework.Framework
	path string
	w    *framework.Watch
	max  int
}

// refresh is the contender's refresh hook.
func (m *sharedMax) refresh(ctx context.Context) (driver.Driver, *framework.Watch, error) {
	if m.w == nil || fired(m.w) {
		data, _, w, err := m.fw.GetW(ctx, m.path)
		if err != nil {
			if errors.Is(err, framework.ErrNoNode) {
				err = fmt.Errorf("%w: shared count %s does not exist", ErrInvalidArgument, m.path)
			}
			return nil, nil, err
		}
		n, err := decodeCount(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: shared count %s: %w", ErrInvalidArgument, m.path, err)
		}
		m.w, m.max = w, n
	}
	return driver.Semaphore(m.max), m.w, nil
}

// fired reports whether w has fired (its event channel is ready or closed).
func fired(w *framework.Watch) bool {
	select {
	case <-w.Events():
		return true
	default:
		return false
	}
}

// decodeCount parses Curator's SharedCount encoding: a 4-byte big-endian
// signed integer.
func decodeCount(data []byte) (int, error) {
	if len(data) != 4 {
		return 0, fmt.Errorf("%d bytes, want 4", len(data))
	}
	return int(int32(binary.BigEndian.Uint32(data))), nil
}
