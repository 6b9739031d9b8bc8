package framework_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
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
	}{
		{"parent reaped after it was made", framework.MkdirsMade, 1, false},
		{"ancestor reaped during the walk", framework.MkdirsWalked, 1, false},
		{"parent reaped every time", framework.MkdirsMade, 1 << 20, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFW(t, nil)
			ctx := testCtx(t)
			var left, rounds atomic.Int64
			remove := framework.SetMkdirsHook(f, func(at framework.MkdirsPoint, full string) {
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
			for j, op := range []struct {
				name string
				run  func(dir string) (string, error)
			}{
				{"Create", func(dir string) (string, error) {
					return f.Create(ctx, dir+"/n-", nil, framework.CreatingParents(),
						framework.WithMode(framework.EphemeralSequential))
				}},
				{"CreateAndList", func(dir string) (string, error) {
					res, err := f.CreateAndList(ctx, dir+"/n-", nil, framework.CreatingParents(),
						framework.Protected(), framework.WithMode(framework.EphemeralSequential))
					return res.Path, err
				}},
			} {
				// The ancestor reaped during the walk is base, which exists before the create.
				base := fmt.Sprintf("/reaped-%d-%d", i, j)
				if _, err := f.Create(ctx, base, nil, framework.WithMode(framework.Container)); err != nil {
					t.Fatal(err)
				}
				left.Store(tc.reaps)
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
