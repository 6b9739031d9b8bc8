package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

func TestCloseLeavesNoGoroutine(t *testing.T) {
	zktest.CheckGoroutines(t)
	p := zktest.NewProxy(t, shared.Member(0).Addr())
	f, err := framework.New(shared.Servers(), framework.WithDialer(p.Dialer()),
		framework.WithDigestAuth("bob", "pw"), framework.WithNamespace("leak"))
	if err != nil {
		t.Fatal(err)
	}
	f.AddListener(func(framework.ConnectionState) {})
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := f.Create(ctx, node+"/n-", nil, framework.CreatingParents(), framework.Protected(),
		framework.WithMode(framework.EphemeralSequential)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := f.ChildrenW(ctx, node); err != nil { // left unfired on purpose
		t.Fatal(err)
	}
	p.Blackhole(true)
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_ = f.Delete(dctx, node, framework.Guaranteed()) // leaves a background delete running
	cancel()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	p.Blackhole(false)
}

// Done is open while the Framework is, and closed once Close has been called.
func TestDoneClosesAtClose(t *testing.T) {
	f := zktest.Connect(t, shared)
	select {
	case <-f.Done():
		t.Fatal("Done closed before Close")
	default:
	}
	f.Close()
	select {
	case <-f.Done():
	default:
		t.Fatal("Done open after Close")
	}
}

func TestTTLWithoutExtendedTypesIsUnimplemented(t *testing.T) {
	c := zktest.Start(t) // extended types off
	f := newFW(t, c.Servers())
	_, err := f.Create(testCtx(t), "/ttl", nil, framework.WithMode(framework.PersistentTTL), framework.WithTTL(time.Minute))
	if !errors.Is(err, framework.ErrUnimplemented) {
		t.Fatalf("TTL create = %v, want ErrUnimplemented", err)
	}
}

func TestListenerRemove(t *testing.T) {
	f, p, s := proxied(t)
	calls := make(chan framework.ConnectionState, 10)
	remove := f.AddListener(func(cs framework.ConnectionState) { calls <- cs })
	remove()
	p.DropConnections()
	s.expect(t, framework.Suspended, framework.Reconnected) // s was registered before: it sees them
	if len(calls) != 0 {
		t.Fatalf("removed listener called %d times", len(calls))
	}
}
