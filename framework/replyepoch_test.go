package framework_test

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// createdListing is what a lock recipe decides on: the epoch of a create and the listings of
// its parents, taken right behind it.
type createdListing struct {
	sess     *framework.Session
	nodes    []string
	listings [][]string
}

// A reply belongs to the session of the connection that carried its request. Here the session
// that created our contender nodes and answered their listings expires right after the create's
// reply (a hook pauses exactly there, once the listings are answered), a new session starts,
// and another client takes the lock. The listings show our nodes alone, so a recipe would grant
// on them: the epoch handed with them must be the dead one (or the call must fail), never the
// live epoch of the new session. Before, the reply was re-labelled with the epoch current after
// it, and both a single mutex's create and a transactional set's were handed the new session's
// live epoch with the dead session's listings.
func TestReplyKeepsTheEpochOfItsConnection(t *testing.T) {
	tests := []struct {
		name   string
		dirs   int
		create func(ctx context.Context, f *framework.Framework, dirs []string) (createdListing, error)
	}{
		{"single mutex", 1, func(ctx context.Context, f *framework.Framework, dirs []string) (createdListing, error) {
			res, err := f.CreateAndList(ctx, dirs[0]+"/lock-", nil,
				framework.WithMode(framework.EphemeralSequential), framework.Protected())
			return createdListing{res.Session, []string{res.Path}, [][]string{res.Children}}, err
		}},
		{"transactional set", 2, func(ctx context.Context, f *framework.Framework, dirs []string) (createdListing, error) {
			paths := []string{dirs[0] + "/lock-", dirs[1] + "/lock-"}
			res, err := f.CreateSetAndList(ctx, paths, make([][]byte, len(paths)), framework.EphemeralSequential)
			return createdListing{res.Session, res.Paths, res.Children}, err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, other := newFW(t, nil), newFW(t, nil)
			dirs := lockDirs(t, f, tt.dirs)
			hook, remove := pauseAfterReply(f, func(ctx context.Context) error {
				if err := expireAndWait(ctx, f, f.Session()); err != nil {
					return err
				}
				return queueIn(ctx, other, dirs)
			})
			got, err := tt.create(testCtx(t), f, dirs)
			remove()
			checkHook(t, hook)
			if err != nil {
				t.Logf("the create failed, as it may: %v", err)
				return
			}
			if serr := got.sess.Err(); serr == nil {
				t.Fatalf("the reply of a dead session was handed the live epoch of session 0x%x: nodes %v, "+
					"listings %v (ours alone: a grant), while those nodes died and another client holds %v",
					got.sess.ID(), got.nodes, got.listings, dirs)
			}
			for i, node := range got.nodes {
				if !slices.Contains(got.listings[i], path.Base(node)) {
					t.Fatalf("listing %v lacks our node %s", got.listings[i], node)
				}
			}
		})
	}
}

// lockDirs creates n lock directories (containers) with f: locks used before.
func lockDirs(t *testing.T, f *framework.Framework, n int) []string {
	t.Helper()
	var dirs []string
	for range n {
		d := uniquePath(t)
		if _, err := f.Create(testCtx(t), d, nil, framework.WithMode(framework.Container)); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// pauseAfterReply makes f's first successful create reply wait until the listings sent behind
// the create are answered, then run during; hook yields during's error once it ran. remove
// undoes the hook.
func pauseAfterReply(f *framework.Framework, during func(ctx context.Context) error) (hook <-chan error, remove func()) {
	listed := make(chan struct{})
	var listedOnce, replyOnce sync.Once
	res := make(chan error, 1)
	remove = framework.SetReplyHook(f, func() {
		replyOnce.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			select {
			case <-listed:
				res <- during(ctx)
			case <-ctx.Done():
				res <- fmt.Errorf("the listings behind the create were not answered: %w", ctx.Err())
			}
		})
	}, func(context.Context) { listedOnce.Do(func() { close(listed) }) })
	return res, remove
}

// checkHook fails the test if the hook did not run, or failed.
func checkHook(t *testing.T, hook <-chan error) {
	t.Helper()
	select {
	case err := <-hook:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("the reply hook did not run")
	}
}

// queueIn has other queue a contender in every dir (its nodes come first now: ours died with
// the session).
func queueIn(ctx context.Context, other *framework.Framework, dirs []string) error {
	for _, d := range dirs {
		// CreatingParents: the container may have been reaped once our nodes died.
		if _, err := other.Create(ctx, d+"/lock-", nil, framework.WithMode(framework.EphemeralSequential),
			framework.CreatingParents()); err != nil {
			return err
		}
	}
	return nil
}

// awaitNewSession waits until old has ended and f runs a live epoch of another session.
func awaitNewSession(ctx context.Context, f *framework.Framework, old *framework.Session) error {
	select {
	case <-old.Done():
	case <-ctx.Done():
		return fmt.Errorf("session 0x%x did not end: %w", old.ID(), ctx.Err())
	}
	for {
		if err := f.WaitConnected(ctx); err != nil {
			return err
		}
		s := f.Session()
		if s.ID() != old.ID() && s.Err() == nil {
			return nil
		}
		select {
		case <-s.Done(): // the same session resumed, then lost: wait for the next one
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("no new session after 0x%x: %w", old.ID(), ctx.Err())
		}
	}
}
