package framework_test

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// InOrder vouches for a watch only on the connection that set it: a reconnect (where the server
// re-registers watches and may report the changes made meanwhile in any order) ends it, for the
// watch and for a Watch that shares it after the reconnect; a watch set on the new connection
// is in order again, and one on another node set before the reconnect stays out of order.
func TestInOrderOnlyOnTheConnectionThatSetTheWatch(t *testing.T) {
	f, p, s := proxied(t, framework.WithErrorPolicy(framework.SessionPolicy))
	ctx := testCtx(t)
	a, b := uniquePath(t), uniquePath(t)
	for _, n := range []string{a, b} {
		if _, err := f.Create(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	getW := func(n string) *framework.Watch {
		t.Helper()
		_, _, w, err := f.GetW(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	wa := getW(a)
	if !f.InOrder(wa) {
		t.Fatal("InOrder false for a watch set on the current connection")
	}
	p.DropConnections()
	s.expect(t, framework.Suspended, framework.Reconnected)
	if f.InOrder(wa) {
		t.Fatal("InOrder true after a reconnect")
	}
	if shared := getW(a); f.InOrder(shared) {
		t.Fatal("InOrder true for a Watch that shares a watch set before the reconnect")
	}
	if wb := getW(b); !f.InOrder(wb) {
		t.Fatal("InOrder false for a watch set on the new connection")
	}
}
