package recipes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 28: goroutines of one process share a sticky mutex's node in FIFO order while nobody
// else wants it: each waiter is handed the node as the one before releases, with no node of its
// own.
func TestStickyFIFOAmongGoroutines(t *testing.T) {
	fw := testFramework(t)
	p := fmt.Sprintf("/sticky-fifo/%d", time.Now().UnixNano())
	m, err := recipes.NewMutex(fw, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	first, err := m.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	const waiters = 4
	order := make(chan int, waiters)
	errs := make(chan error, waiters)
	for i := range waiters {
		go func() {
			l, err := m.Acquire(testCtx(t, 30*time.Second))
			if err != nil {
				errs <- err
				return
			}
			if l.Path() != first.Path() {
				errs <- fmt.Errorf("waiter %d got %s, want the shared node %s", i, l.Path(), first.Path())
			}
			order <- i
			errs <- l.Release(testCtx(t, 10*time.Second))
		}()
		zktest.Eventually(t, 10*time.Second, fmt.Sprintf("waiter %d to queue", i), func() bool {
			return recipes.StickyWaiters(m.Lock) == i+1
		})
	}
	if kids := zktest.Children(t, fw, p); len(kids) != 1 {
		t.Fatalf("local waiters made nodes: %v", kids)
	}
	if err := first.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	for want := range waiters {
		select {
		case got := <-order:
			if got != want {
				t.Fatalf("waiter %d was served as number %d", got, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("waiter %d was never served", want)
		}
	}
	for range waiters {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("after Close: %v", kids)
	}
}
