package recipes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A held lease wires the watch on its own node when it is made; news may already be on that
// watch then (a delete or a change between the own-node check's reply and the lease), and
// OnEvent says so with now. The lease must read that news, not miss it: a node deleted
// before the lease was made ends the lease at once, a change sets the watch again (a later
// delete still ends the lease), and a release after the change deletes the node.
func TestOwnWatchWithNewsBeforeTheLease(t *testing.T) {
	for _, tc := range []struct {
		name   string
		news   func(ctx context.Context, other *framework.Framework, p string) error
		lost   bool // the news itself ends the lease
		delete bool // then the node is deleted by the other client: the watch was set again
	}{
		{name: "deleted", news: deleteNode, lost: true},
		{name: "changed then deleted", news: setNode, delete: true},
		{name: "changed then released", news: setNode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := zktest.UniquePath(t, "/ownnow")
			watched := make(chan string, 8) // the paths of fw's getData requests with a watch that set one
			fw := testFramework(t, framework.WithTracer(func(tr framework.Trace) {
				if tr.Kind == framework.TraceOperation && tr.Name == "getDataW" && tr.Err == nil {
					select {
					case watched <- tr.Path:
					default:
					}
				}
			}))
			other := testFramework(t)
			ctx := testCtx(t, 20*time.Second)
			m, err := recipes.NewMutex(fw, dir)
			if err != nil {
				t.Fatal(err)
			}
			p, err := fw.Create(ctx, dir+"/n-", nil, framework.WithMode(framework.EphemeralSequential),
				framework.CreatingParents())
			if err != nil {
				t.Fatal(err)
			}
			sess := fw.Session()
			_, _, w, err := fw.GetW(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			zktest.Receive(t, watched, 20*time.Second, "the test's own getData")
			// Told of the news without reading the event, which the lease must read itself.
			news := make(chan struct{})
			if _, now := w.OnEvent(func(framework.Event) { close(news) }); now {
				t.Fatal("the watch has news before any change")
			}
			if err := tc.news(ctx, other, p); err != nil {
				t.Fatal(err)
			}
			zktest.Receive(t, news, 20*time.Second, "the news on the watch")
			if !w.HasNews() {
				t.Fatal("the watch's hook ran, yet it has no news")
			}
			lease := recipes.LeaseOn(m.Lock, p, sess, w)
			if tc.lost {
				zktest.Receive(t, lease.Done(), 20*time.Second, "the lease's end")
				if err := lease.Err(); !errors.Is(err, recipes.ErrNodeDeleted) || !errors.Is(err, recipes.ErrLockLost) {
					t.Fatalf("Err = %v, want ErrLockLost and ErrNodeDeleted", err)
				}
				if m.IsAcquiredInThisProcess() {
					t.Fatal("a lease whose node is gone still counts as held")
				}
			} else {
				// The change consumed the watch; the lease sets it again on its node.
				if got := zktest.Receive(t, watched, 20*time.Second, "the lease's own-node watch set again"); got != p {
					t.Fatalf("getData with a watch on %s, want %s", got, p)
				}
				if err := lease.Err(); err != nil {
					t.Fatalf("Err = %v after a change of the node, want it held", err)
				}
			}
			if tc.delete {
				if err := deleteNode(ctx, other, p); err != nil {
					t.Fatal(err)
				}
				zktest.Receive(t, lease.Done(), 20*time.Second, "the lease's end after the delete")
				if err := lease.Err(); !errors.Is(err, recipes.ErrNodeDeleted) {
					t.Fatalf("Err = %v, want ErrNodeDeleted", err)
				}
			}
			if err := lease.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if st, err := other.Exists(ctx, p); err != nil || st != nil {
				t.Fatalf("Exists(%s) = %v, %v after the release, want gone", p, st, err)
			}
		})
	}
}

func deleteNode(ctx context.Context, other *framework.Framework, p string) error {
	return other.Delete(ctx, p)
}

func setNode(ctx context.Context, other *framework.Framework, p string) error {
	_, err := other.Set(ctx, p, []byte("x"), -1)
	return err
}
