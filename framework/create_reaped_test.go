package framework_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A container parent can be reaped by the server while a create makes the missing parents (an
// empty container that once had a child goes at the next container check): after the parents
// were made and before the create is sent again, or an ancestor between the walk up and the
// creation of the missing nodes below it. The create walks and makes them again, a bounded number
// of times, instead of failing the caller with NoNode: session 11's CI saw a semaphore's acquire
// fail so against Curator's containers.
func TestCreateParentReapedAfterMkdirs(t *testing.T) {
	cases := []struct {
		name    string
		at      framework.MkdirsPoint // where the node is deleted
		reaps   int64                 // how many times
		wantErr bool
		reaper  bool // then, at the next walk, wait for the server's reaper to take the ancestor found
	}{
		{"parent reaped after it was made", framework.MkdirsMade, 1, false, false},
		{"ancestor reaped during the walk", framework.MkdirsWalked, 1, false, false},
		{"parent reaped every time", framework.MkdirsMade, 1 << 20, true, false},
		// The parent's delete leaves its own parent an empty container that had a child: the
		// server reaps it at its next container check, which can come between the next walk
		// (that found it) and the making of the parent below it. That interleaving, forced
		// here, failed the create with NoNode (a flaky failure under load): the making now
		// walks again.
		{"parent reaped, then its parent by the server during the walk", framework.MkdirsMade, 1, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFW(t, nil)
			ctx := testCtx(t)
			var left, rounds atomic.Int64
			var awaited atomic.Bool
			remove := framework.SetMkdirsHook(f, func(at framework.MkdirsPoint, full string) {
				if tc.reaper && at == framework.MkdirsWalked && left.Load() == 0 && awaited.CompareAndSwap(false, true) {
					awaitReaped(t, f, full)
				}
				if at != tc.at {
					return
				}
				rounds.Add(1)
				if left.Add(-1) >= 0 {
					// NoNode: the server's container check reaped it first (an ancestor made
					// in an earlier round, empty once its child went): gone either way.
					if err := f.Delete(context.Background(), full); err != nil && !errors.Is(err, framework.ErrNoNode) {
						t.Errorf("reap %s: %v", full, err)
					}
				}
			})
			defer remove()
			for j, op := range parentCreates(ctx, f) {
				// The ancestor reaped during the walk is base, which exists before the create.
				base := zktest.UniquePath(t, "/") + fmt.Sprint(j) // unique: the test may run again (-count)
				if _, err := f.Create(ctx, base, nil, framework.WithMode(framework.Container)); err != nil {
					t.Fatal(err)
				}
				left.Store(tc.reaps)
				awaited.Store(false)
				rounds.Store(0)
				p, err := op.run(base + "/x/y")
				switch {
				case tc.wantErr && !errors.Is(err, framework.ErrNoNode):
					t.Errorf("%s: got (%q, %v), want an error wrapping ErrNoNode", op.name, p, err)
				case tc.wantErr && rounds.Load() > 8:
					t.Errorf("%s: made the parents %d times; want a small bound", op.name, rounds.Load())
				case !tc.wantErr && err != nil:
					t.Errorf("%s: %v (a node was reaped %d time(s) while the parents were made)", op.name, err, tc.reaps)
				case tc.reaps > 0 && rounds.Load() == 0:
					t.Errorf("%s: the hook never ran: the test proves nothing", op.name)
				}
			}
		})
	}
}

// awaitReaped waits, at most 10 s, until the server's container check has deleted p.
func awaitReaped(t *testing.T, f *framework.Framework, p string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := zktest.AwaitGone(ctx, f, p); err != nil {
		t.Errorf("the server did not reap %s within 10 s: %v", p, err)
	}
}

// A reaper storm during the walks: every walk's deepest existing ancestor is gone before the
// missing nodes below it are made, so every making fails with NoNode. The create gives up with
// NoNode after a bounded number of walks (parentRounds walks per making, a making between two of
// the attempt's parentRounds creates: 6), having walked again inside one making.
func TestCreateWalksBoundedUnderReaperStorm(t *testing.T) {
	const maxWalks = 6
	f := newFW(t, nil)
	ctx := testCtx(t)
	var walks atomic.Int64
	remove := framework.SetMkdirsHook(f, func(at framework.MkdirsPoint, full string) {
		if at != framework.MkdirsWalked {
			return
		}
		walks.Add(1)
		if err := f.Delete(context.Background(), full); err != nil {
			t.Errorf("reap %s: %v", full, err)
		}
	})
	defer remove()
	for j, op := range parentCreates(ctx, f) {
		// A chain of persistent nodes deeper than the bound: each walk finds one level less and
		// the hook deletes that level, never reaching the root.
		dir := zktest.UniquePath(t, "/") + fmt.Sprint(j) // unique: the test may run again (-count)
		var chain []string
		for range maxWalks + 2 {
			if _, err := f.Create(ctx, dir, nil); err != nil {
				t.Fatal(err)
			}
			chain = append(chain, dir)
			dir += "/a"
		}
		t.Cleanup(func() { // what the storm left of the chain, deepest first
			for i := len(chain) - 1; i >= 0; i-- {
				if err := f.Delete(context.Background(), chain[i]); err != nil && !errors.Is(err, framework.ErrNoNode) {
					t.Errorf("clean up %s: %v", chain[i], err)
				}
			}
		})
		walks.Store(0)
		p, err := op.run(dir + "/x")
		n := walks.Load()
		switch {
		case !errors.Is(err, framework.ErrNoNode):
			t.Errorf("%s: got (%q, %v), want an error wrapping ErrNoNode", op.name, p, err)
		case n > maxWalks:
			t.Errorf("%s: walked %d times; want at most %d", op.name, n, maxWalks)
		case n < 4:
			t.Errorf("%s: walked %d times: no making walked again (the storm was not forced)", op.name, n)
		}
	}
}

// parentCreate is a create that makes missing parents, named for the test's messages.
type parentCreate struct {
	name string
	run  func(dir string) (string, error) // creates an ephemeral sequential node under dir
}

// parentCreates are the creates of the reaped-parent tests: Create, and CreateAndList with a
// protected name.
func parentCreates(ctx context.Context, f *framework.Framework) []parentCreate {
	return []parentCreate{
		{"Create", func(dir string) (string, error) {
			return f.Create(ctx, dir+"/n-", nil, framework.CreatingParents(),
				framework.WithMode(framework.EphemeralSequential))
		}},
		{"CreateAndList", func(dir string) (string, error) {
			res, err := f.CreateAndList(ctx, dir+"/n-", nil, framework.CreatingParents(),
				framework.Protected(), framework.WithMode(framework.EphemeralSequential))
			return res.Path, err
		}},
	}
}
