package framework_test

import (
	"context"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// released is what a recipe's grant offers that this test needs.
type released interface {
	Done() <-chan struct{}
	Release(ctx context.Context) error
}

// The grant a recipe would make on the dead session's listing (TestReplyKeepsTheEpochOfItsConnection)
// is not made: with the same pause right after the create's reply (the session expires, a new
// one starts, another client takes the lock), TryAcquire of a single mutex and of a
// transactional multi-lock re-queues in the live session and finds the lock held. Before, each
// returned a lease, its Done open, while the other client held the lock.
func TestNoGrantOnADeadSessionsListing(t *testing.T) {
	tests := []struct {
		name string
		dirs int
		take func(ctx context.Context, fw *framework.Framework, dirs []string, try bool) (released, error)
	}{
		{"single mutex", 1, func(ctx context.Context, fw *framework.Framework, dirs []string, try bool) (released, error) {
			m, err := recipes.NewMutex(fw, dirs[0])
			if err != nil {
				return nil, err
			}
			if try {
				return m.TryAcquire(ctx)
			}
			return m.Acquire(ctx)
		}},
		{"transactional set", 2, func(ctx context.Context, fw *framework.Framework, dirs []string, try bool) (released, error) {
			m, err := recipes.NewTxMultiMutex(fw, dirs...)
			if err != nil {
				return nil, err
			}
			if try {
				return m.TryAcquire(ctx)
			}
			return m.Acquire(ctx)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, other := newFW(t, nil), newFW(t, nil)
			dirs := lockDirs(t, f, tt.dirs) // their directories stand, so the listings are answered
			var theirs released
			hook, remove := pauseAfterReply(f, func(ctx context.Context) error {
				if err := expireAndWait(ctx, f, f.Session()); err != nil {
					return err
				}
				var err error
				theirs, err = tt.take(ctx, other, dirs, false)
				return err
			})
			ours, err := tt.take(testCtx(t), f, dirs, true)
			remove()
			checkHook(t, hook)
			defer theirs.Release(testCtx(t))
			if err == nil {
				defer ours.Release(testCtx(t))
				select {
				case <-ours.Done():
					t.Fatalf("granted on a dead session's listing (Done closed since) while another client holds %v", dirs)
				default:
					t.Fatalf("granted on a dead session's listing, Done open, while another client holds %v", dirs)
				}
			}
			t.Logf("refused, as it must be: %v", err)
		})
	}
}

// expireAndWait expires f's session (old, on the shared server) and waits for its next one.
func expireAndWait(ctx context.Context, f *framework.Framework, old *framework.Session) error {
	if err := zktest.Expire(ctx, shared, f); err != nil {
		return err
	}
	return awaitNewSession(ctx, f, old)
}
