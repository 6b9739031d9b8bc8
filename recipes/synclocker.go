package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// SyncLocker adapts a lock to sync.Locker, for code that wants one, as etcd's
// concurrency.NewLocker does. Lock blocks until the lock is held; Unlock releases it. Errors
// have nowhere to go in that interface: Lock retries a failed acquire (after the framework's
// retry policy gave up), pausing between tries as that policy says, until it succeeds, and panics only when it never can, because the
// framework was closed. Use Lease to learn when the lock may be lost. Safe for concurrent
// use; as with sync.Mutex, Unlock may be called from another goroutine than Lock.
type SyncLocker struct {
	lock *Lock

	mu    sync.Mutex
	lease *Lease
}

// NewSyncLocker returns a sync.Locker on lock (a Lock, or the Lock of a recipe such as
// InterProcessMutex.Lock).
func NewSyncLocker(lock *Lock) (*SyncLocker, error) {
	if lock == nil {
		return nil, fmt.Errorf("%w: nil lock", ErrInvalidArgument)
	}
	return &SyncLocker{lock: lock}, nil
}

// syncLockerMinPause is the shortest pause between two tries of SyncLocker.Lock: a retry
// policy that never sleeps (NTimes(n, 0)) must not turn a permanent error into a busy loop of
// requests; 20 tries a second at most.
const syncLockerMinPause = 50 * time.Millisecond

// Lock blocks until the lock is held. After a failed acquire it pauses as the framework's
// retry policy says (the longest pause it gave, once its retries are used up; never less than
// 50 ms), waits for a connection and tries again. It panics if the framework is closed, as
// soon as it is: Close ends a pause or a wait for a connection at once.
func (s *SyncLocker) Lock() {
	var p pacer
	for {
		l, err := s.lock.Acquire(context.Background())
		if err == nil {
			s.mu.Lock()
			s.lease = l
			s.mu.Unlock()
			return
		}
		if errors.Is(err, framework.ErrClosed) {
			panic(fmt.Sprintf("recipes: SyncLocker.Lock on %s: %v", s.lock.path, err))
		}
		pause := p.next(s.lock.fw.RetryPolicy())
		s.lock.fw.Logger().Warn("recipes: SyncLocker.Lock: acquire failed; trying again", "path", s.lock.path, "err", err, "pause", pause)
		if err := s.pause(pause); errors.Is(err, framework.ErrClosed) {
			panic(fmt.Sprintf("recipes: SyncLocker.Lock on %s: %v", s.lock.path, err))
		}
	}
}

// pause waits d, then for a connection; it ends with ErrClosed as soon as the framework
// closes, so that Lock, which has no ctx, never outlasts Close by a pause.
func (s *SyncLocker) pause(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.lock.fw.Done():
		return framework.ErrClosed
	}
	return s.lock.fw.WaitConnected(context.Background())
}

// pacer spaces the tries of one Lock call under a retry policy whose BackOff may stop.
type pacer struct {
	b    backoff.BackOff
	last time.Duration
}

// next returns the pause before the next try: the policy's, or the longest it gave once it
// stops, and at least syncLockerMinPause.
func (p *pacer) next(policy retry.Policy) time.Duration {
	if p.b == nil {
		p.b = policy.NewBackOff()
	}
	if d := p.b.NextBackOff(); d != backoff.Stop {
		p.last = max(p.last, d)
	}
	return max(p.last, syncLockerMinPause)
}

// Unlock releases the lock. Unlocking an unlocked SyncLocker panics, as sync.Mutex does; a
// failed delete is finished in the background (logged at Warn).
func (s *SyncLocker) Unlock() {
	s.mu.Lock()
	l := s.lease
	s.lease = nil
	s.mu.Unlock()
	if l == nil {
		panic("recipes: SyncLocker.Unlock of an unlocked lock " + s.lock.path)
	}
	if err := l.Release(context.Background()); err != nil {
		s.lock.fw.Logger().Warn("recipes: SyncLocker.Unlock", "path", s.lock.path, "err", err)
	}
}

// Lease returns the lease held through this locker, or nil: its Done tells when the lock may
// be lost, its Token the fencing token.
func (s *SyncLocker) Lease() *Lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lease
}
