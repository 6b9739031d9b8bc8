package recipes_test

import (
	"fmt"
	"log"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// A sticky mutex keeps its node after Release, idle: the next Acquire in this process is
// granted locally, with no request, on the same node (so with the same fencing token), for as
// long as nobody else queues. A contender from another session gets the lock as from any
// holder: our idle node goes as soon as it queues.
func ExampleWithSticky() {
	ctx, cancel := exampleCtx()
	defer cancel()
	a, b := connect(ctx), connect(ctx)
	defer a.Close()
	defer b.Close()

	m, err := recipes.NewMutex(a, "/locks/sticky-example", recipes.WithSticky(time.Minute))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close(ctx) // deletes an idle node

	first, err := m.Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	node := first.Path()
	first.Release(ctx) // the node stays, idle
	again, err := m.Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same node:", again.Path() == node)
	again.Release(ctx)

	other, _ := recipes.NewMutex(b, "/locks/sticky-example") // a plain contender, unchanged
	l, err := other.Acquire(ctx)                             // our idle node goes when it queues
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the other session holds:", l.Err() == nil)
	l.Release(ctx)
	// Output:
	// same node: true
	// the other session holds: true
}
