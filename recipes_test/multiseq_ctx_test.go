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

// hookLocker is a real lock whose Hold runs after, once it returned, before the multi-lock
// looks at the result: a test forces an interleaving at the grant with it.
type hookLocker struct {
	recipes.Locker
	held  chan recipes.Held // receives what Hold returned, if not nil
	after func()            // runs after a successful Hold, if not nil
}

func (h hookLocker) Hold(ctx context.Context) (recipes.Held, error) {
	l, err := h.Locker.Hold(ctx)
	if err == nil && h.held != nil {
		h.held <- l
	}
	if err == nil && h.after != nil {
		h.after()
	}
	return l, err
}

// Issue 24.5, at the edge of the deadline: the last lock of a sequential set is granted, and
// in the same moment a lock taken before it is lost and the caller's ctx ends. Acquire must not
// return that set as held: it returns an error (the loss, with ctx's) and deletes the nodes.
// On the old code a loss seen once ctx had ended was ignored, and Acquire returned the set
// with its Done closed.
func TestSequentialMultiLockLostAtGrantAsCtxEnds(t *testing.T) {
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	root := lockPath(t)
	fa := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	fb := zktest.Connect(t, zk)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := make(chan recipes.Held, 1)
	a := hookLocker{Locker: mustMutex(t, fa, root+"/a"), held: first}
	b := hookLocker{Locker: mustMutex(t, fa, root+"/b"), after: func() {
		la := <-first
		proxy.DropConnections()
		select {
		case <-la.Done():
		case <-time.After(20 * time.Second):
			t.Error("the lease of /a was never told of the blip")
		}
		cancel() // the caller's deadline, right at the grant
	}}
	m, err := recipes.NewMultiLock(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ml, err := m.Acquire(ctx)
	if err == nil {
		t.Fatalf("Acquire returned a set with a lost member as held (its Err: %v)", ml.Err())
	}
	if !errors.Is(err, recipes.ErrLockLost) {
		t.Errorf("Acquire: %v, want an error wrapping ErrLockLost", err)
	}
	zktest.Eventually(t, 20*time.Second, "no nodes left", func() bool {
		return len(zktest.Children(t, fb, root+"/a"))+len(zktest.Children(t, fb, root+"/b")) == 0
	})
}
