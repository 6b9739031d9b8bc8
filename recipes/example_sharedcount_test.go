package recipes_test

import (
	"fmt"
	"log"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// A SharedCount seeded with 4 creates its node when it is missing, keeps the count up to date
// once started, and tells its listeners of every change, whoever made it.
func ExampleSharedCount() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

	count, err := recipes.NewSharedCount(fw, "/counts/workers-max", recipes.WithSeed(4))
	if err != nil {
		log.Fatal(err)
	}
	if err := count.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer count.Close()
	changed := make(chan int32, 1)
	count.AddListener(func(n int32) { changed <- n })
	fmt.Println("count:", count.Count())

	ok, err := count.TrySetCount(ctx, count.VersionedValue(), 8) // a compare-and-set on the version
	if err != nil {
		log.Fatal(err)
	}
	select {
	case n := <-changed:
		fmt.Println("set:", ok, "heard:", n)
	case <-ctx.Done():
		log.Fatal(ctx.Err())
	}
	// Output:
	// count: 4
	// set: true heard: 8
}
