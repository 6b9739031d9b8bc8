package recipes_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The watch preArm set vouches for our node only while it is quiet and set on the current
// connection: a reconnect (the server may then report the changes made meanwhile in any order)
// or news on the watch sends the wake back to a read (settle: stands).
func TestPreArmedOnlyQuietAndInOrder(t *testing.T) {
	proxy := zktest.NewProxy(t, servers()[0])
	var states = make(chan framework.ConnectionState, 16)
	fw := testFramework(t, framework.WithDialer(proxy.Dialer()), framework.WithErrorPolicy(framework.SessionPolicy),
		framework.WithListener(func(s framework.ConnectionState) {
			select {
			case states <- s:
			default:
			}
		}))
	ctx := testCtx(t, 20*time.Second)
	dir := zktest.UniquePath(t, "/prearm")
	m, err := recipes.NewMutex(fw, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := dir + "/n"
	if _, err := fw.Create(ctx, p, nil, framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fw.Delete(testCtx(t, 10*time.Second), p) })
	arm, armed, watch := recipes.PreArmProbe(m.Lock, p)
	if err := arm(ctx); err != nil {
		t.Fatal(err)
	}
	if !armed() {
		t.Fatal("preArmed nil for a quiet watch set on the current connection")
	}
	proxy.DropConnections()
	for zktest.Receive(t, states, 20*time.Second, "the reconnect") != framework.Reconnected {
	}
	if armed() {
		t.Fatal("preArmed vouches for the node after a reconnect")
	}
	if err := arm(ctx); err != nil { // shares the watch set before the reconnect
		t.Fatal(err)
	}
	if armed() {
		t.Fatal("preArmed vouches for a watch shared from before the reconnect")
	}
	w := watch()
	if _, err := fw.Set(ctx, p, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := arm(ctx); err != nil { // the watch fired: a new one, on the new connection
		t.Fatal(err)
	}
	if !armed() || watch() == w {
		t.Fatal("preArm did not set a new watch after the old one fired")
	}
	if _, err := fw.Set(ctx, p, []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := watch().Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if armed() {
		t.Fatal("preArmed vouches for a watch that has fired")
	}
}
