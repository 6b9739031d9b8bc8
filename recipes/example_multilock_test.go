package recipes_test

import (
	"context"
	"log"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// A transfer needs both accounts. Locks are taken in path order whatever
// the order given, so a concurrent transfer the other way cannot deadlock,
// and the context's deadline covers the whole set.
func ExampleInterProcessMultiLock() {
	fw, err := framework.New([]string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	from, err := recipes.NewMutex(fw, "/accounts/42")
	if err != nil {
		log.Fatal(err)
	}
	rw, err := recipes.NewReadWriteLock(fw, "/accounts/7")
	if err != nil {
		log.Fatal(err)
	}
	ml, err := recipes.NewMultiLock(from, rw.WriteLock())
	if err != nil {
		log.Fatal(err)
	}
	held, err := ml.Acquire(ctx)
	if err != nil {
		log.Fatal(err) // none of the locks is held
	}
	// ... move the money ...
	if err := held.Release(context.Background()); err != nil {
		log.Print(err) // every lock was still released; errors are joined
	}
}
