package framework_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// awaitChildEvent fails unless w fires, within bound, with a change of its parent's children.
func awaitChildEvent(t *testing.T, w *framework.Watch) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	ev, err := w.Wait(ctx)
	if err != nil || ev.Type != framework.EventNodeChildrenChanged {
		t.Fatalf("the listing's watch: %+v, %v; want a children change", ev, err)
	}
}

// CreateAndListW returns the watch its listing set on the parent: live, the only one, and fired
// by the next child change (another client's create). CreateAndList returns none.
func TestCreateAndListWWatchesTheParent(t *testing.T) {
	f, g := newFW(t, nil), newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	plain, err := f.CreateAndList(ctx, dir+"/lock-", nil, lockOpts()...)
	if err != nil || plain.Watch != nil {
		t.Fatalf("CreateAndList = %+v, %v; want no watch", plain, err)
	}
	if n := f.Watches(); n != 0 {
		t.Fatalf("%d watches after CreateAndList, want 0", n)
	}
	res, err := f.CreateAndListW(ctx, dir+"/lock-", nil, lockOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	checkListing(t, f, res)
	if res.Watch == nil || res.Watch.HasFired() || len(res.Children) != 2 {
		t.Fatalf("CreateAndListW = %+v; want both nodes listed and a live watch", res)
	}
	if n := f.Watches(); n != 1 {
		t.Fatalf("%d watches after CreateAndListW, want 1", n)
	}
	if _, err := g.Create(ctx, dir+"/other", nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	awaitChildEvent(t, res.Watch)
	zktest.Eventually(t, bound, "no live watch", func() bool { return f.Watches() == 0 })
}

// When the first listing fails (the parent is missing until the create makes it), CreateAndListW
// lists again, and the watch is that second listing's: live, the only one, fired by the next
// child change; nothing is left behind.
func TestCreateAndListWRelistWatch(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t) + "/made"
	before := framework.Relists(f)
	res, err := f.CreateAndListW(ctx, dir+"/lock-", nil, lockOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	checkListing(t, f, res)
	if framework.Relists(f) == before {
		t.Fatal("the first listing of a missing parent did not fail: no second listing was needed")
	}
	if res.Watch == nil || res.Watch.HasFired() {
		t.Fatalf("CreateAndListW after a second listing = %+v; want its live watch", res)
	}
	if n := f.Watches(); n != 1 {
		t.Fatalf("%d watches after a second listing, want 1", n)
	}
	if err := f.Delete(ctx, res.Path); err != nil {
		t.Fatal(err)
	}
	awaitChildEvent(t, res.Watch)
	zktest.Eventually(t, bound, "no live watch", func() bool { return f.Watches() == 0 })
}

// A create that fails returns no watch; the watch its listing set stays until the parent's
// children change, and repeated failures share it instead of adding watches.
func TestCreateAndListWFailuresDoNotAddUp(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir+"/fixed", nil, framework.CreatingParents(), framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		res, err := f.CreateAndListW(ctx, dir+"/fixed", nil, framework.WithMode(framework.Ephemeral))
		if !errors.Is(err, framework.ErrNodeExists) || res.Watch != nil {
			t.Fatalf("try %d: CreateAndListW of an existing node = %+v, %v; want ErrNodeExists and no watch", i, res, err)
		}
		if n := f.Watches(); n > 1 {
			t.Fatalf("try %d: %d watches, want at most 1", i, n)
		}
	}
	if err := f.Delete(ctx, dir+"/fixed"); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, bound, "no live watch", func() bool { return f.Watches() == 0 })
}

// A caller whose ctx ends before the create does gets no watch; the node the create still makes
// is deleted, and that delete fires whatever watch the listing set: nothing is left behind.
func TestCreateAndListWAbandonedLeavesNoWatch(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	gate, created := make(chan struct{}), make(chan struct{})
	remove := framework.SetCreateHooks(f, func() { close(created); <-gate }, nil, nil)
	defer remove()
	short, cancel := context.WithCancel(ctx)
	go func() { <-created; cancel() }()
	res, err := f.CreateAndListW(short, dir+"/lock-", nil, lockOpts()...)
	if !errors.Is(err, context.Canceled) || res.Path != "" || res.Watch != nil {
		t.Fatalf("CreateAndListW = %+v, %v; want Canceled, no path and no watch", res, err)
	}
	close(gate)
	zktest.Eventually(t, bound, "the abandoned node to be deleted and no live watch", func() bool {
		kids, _, err := f.Children(ctx, dir)
		return err == nil && len(kids) == 0 && f.Watches() == 0
	})
}
