package recipes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 17.17: two Locks on one path whose drivers use a lock name per instance each sort the
// other's node after their own. On the old code the second one was granted while the first
// held (two holders); the loop now refuses that grant with driver.ErrKeyOrder.
func TestLoopRefusesAGrantThatJumpsTheQueue(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	la, err := recipes.NewLock(fa, p, driver.Standard("alpha-", 1))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := recipes.NewLock(fb, p, driver.Standard("beta-", 1))
	if err != nil {
		t.Fatal(err)
	}
	a, err := la.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer mustRelease(t, a)
	b, err := lb.Acquire(ctxFor(t, 10*time.Second))
	if err == nil {
		mustRelease(t, b)
		t.Fatal("a second holder was granted while the first held")
	}
	if !errors.Is(err, driver.ErrKeyOrder) {
		t.Fatalf("second Acquire: %v, want ErrKeyOrder", err)
	}
	if n := len(zktest.Children(t, fa, p)); n != 1 {
		t.Fatalf("%d nodes after the refused acquire, want the holder's only", n)
	}
}
