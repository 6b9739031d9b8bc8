package framework_test

import (
	"context"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
)

// The framework's wrapper allocates nothing of its own for the requests of an acquisition: a
// request's closure captured its variables and escaped through the hand-off beside a
// cancellable caller, so every request allocated it, even one that ran on the caller's
// goroutine (issue 27). Each request is priced against the same request sent bare on the
// framework's own connection; a read that shares a live watch also makes the Watch it returns.
func TestRequestAllocations(t *testing.T) {
	f := newFW(t, nil)
	zc := framework.Conn(f)
	parent := uniquePath(t)
	ctx := context.Background()
	if _, err := f.Create(ctx, parent, nil); err != nil {
		t.Fatal(err)
	}
	live, cancel := context.WithCancel(context.Background())
	defer cancel()
	node := parent + "/n"
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, w, err := f.GetW(ctx, node); err != nil || w == nil { // later GetWs share its watch
		t.Fatalf("GetW = %v, %v", w, err)
	}
	gone := parent + "/gone"
	for _, c := range []struct {
		name      string
		own       int // the framework's own objects: a shared watch's handle
		framework func(ctx context.Context)
		bare      func()
	}{
		{"Delete", 0, func(ctx context.Context) {
			_, _ = zc.Create(gone, nil, 0, zk.WorldACL(zk.PermAll))
			if err := f.Delete(ctx, gone); err != nil {
				t.Fatal(err)
			}
		}, func() {
			_, _ = zc.Create(gone, nil, 0, zk.WorldACL(zk.PermAll))
			if err := zc.Delete(gone, -1); err != nil {
				t.Fatal(err)
			}
		}},
		{"Children", 0, func(ctx context.Context) { _, _, _ = f.Children(ctx, parent) }, func() { _, _, _ = zc.Children(parent) }},
		{"GetW, shared", 1, func(ctx context.Context) { _, _, _, _ = f.GetW(ctx, node) }, func() { _, _, _ = zc.Get(node) }},
	} {
		for _, ctx := range []struct {
			name    string
			ctx     context.Context
			handOff int // a request handed off beside a cancellable caller: four objects, as many as before callWith
		}{{"background", ctx, 0}, {"inline", framework.Inline(live), 0}, {"cancellable", live, 4}} {
			fw := testing.AllocsPerRun(100, func() { c.framework(ctx.ctx) })
			bare := testing.AllocsPerRun(100, c.bare)
			if want := c.own + ctx.handOff; fw > bare+float64(want) {
				t.Errorf("%s under a %s context: %v allocations, %v bare, want at most %d more", c.name, ctx.name, fw, bare, want)
			}
		}
	}
}
