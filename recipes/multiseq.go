package recipes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/retry"
)

// errMemberLost marks a sequential attempt that lost a lock it had taken before it held the
// whole set: the set is released and queued again.
var errMemberLost = errors.New("recipes: a lock of the set was lost while the multi-lock waited for the next")

// acquireSeq takes the locks one by one in path order until it holds the whole set, under ctx's
// one deadline. An attempt that loses a lock it took (see seqAttempt) is released and queued
// again from the first lock, as a single lock queues again when its node vanishes: so the set
// Acquire returns never has a lost member. Before it queues again it waits the retry policy's
// next pause (a retry.Pacer: at least retry.MinPace), so that a directory that takes every grant
// away (hostile, or flapping) cannot make it spin. Once ctx ends, the error says what was lost.
func (m *InterProcessMultiLock) acquireSeq(ctx context.Context) (*MultiLease, error) {
	pace := retry.NewPacer(m.retryPolicy())
	for {
		ml, err := m.seqAttempt(ctx)
		if !errors.Is(err, errMemberLost) {
			return ml, err
		}
		if ctx.Err() == nil {
			waitPause(ctx, pace.Next())
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ctx.Err(), err)
		}
	}
}

// policied is a Locker that knows its framework's retry policy: Lock, and the types that
// embed it.
type policied interface {
	retryPolicy() retry.Policy
}

// retryPolicy returns the retry policy of the lock's framework (a multi-lock paces its
// re-queueing by it).
func (l *Lock) retryPolicy() retry.Policy { return l.fw.RetryPolicy() }

// retryPolicy returns the retry policy of the set's first lock that knows one (the locks of a
// set normally share one framework), or nil: the Pacer then waits retry.MinPace.
func (m *InterProcessMultiLock) retryPolicy() retry.Policy {
	for _, lk := range m.locks {
		if p, ok := lk.(policied); ok {
			return p.retryPolicy()
		}
	}
	return nil
}

// waitPause waits d or until ctx ends.
func waitPause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// seqAttempt takes each lock in turn. The wait for each lock lasts only while every lock taken
// before it is still held: the first of them to end (lost, its node deleted) ends the wait at
// once, and a loss seen at the end (between the last grant and now) counts as well, whether or
// not ctx has ended meanwhile. Either way the locks taken are released (as cleanups, never past
// ctx) and errMemberLost returned (acquireSeq adds ctx's error once it has ended).
func (m *InterProcessMultiLock) seqAttempt(ctx context.Context) (*MultiLease, error) {
	ml := &MultiLease{leases: make([]Held, 0, len(m.locks))}
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	for _, lk := range m.locks {
		l, err := lk.Hold(wctx)
		if lost := ml.lostMember(); lost != nil { // even once ctx ended: never return it held
			if err == nil {
				ml.leases = append(ml.leases, l)
			}
			return nil, errors.Join(fmt.Errorf("%w: %w", errMemberLost, lost), ml.rollback(ctx))
		}
		if err != nil {
			err = fmt.Errorf("recipes: multi-lock %s: %w", lk.Path(), err)
			return nil, errors.Join(err, ml.rollback(ctx))
		}
		ml.leases = append(ml.leases, l)
		stop := context.AfterFunc(l.Context(), func() { cancel(errMemberLost) })
		defer stop()
	}
	ml.watchLeases()
	return ml, nil
}

// lostMember returns the Err of the first lease of the set that has ended, or nil.
func (ml *MultiLease) lostMember() error {
	for _, l := range ml.leases {
		if err := l.Err(); err != nil {
			return err
		}
	}
	return nil
}
