package recipes_test

import (
	"fmt"
	"log"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// A transfer needs both accounts. Locks are taken in path order whatever the order given, so
// a concurrent transfer the other way cannot deadlock, and the context's deadline covers the
// whole set.
func ExampleInterProcessMultiLock() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

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
	fmt.Println("order:", ml.Paths())
	held, err := ml.Acquire(ctx)
	if err != nil {
		log.Fatal(err) // none of the locks is held
	}
	fmt.Println("held:", len(held.Leases()), held.Err() == nil)
	// ... move the money ...
	if err := held.Release(ctx); err != nil {
		log.Print(err) // every lock was still released; errors are joined
	}
	// Output:
	// order: [/accounts/42 /accounts/7]
	// held: 2 true
}

// Two transfers name the accounts in opposite orders. The transactional multi-lock queues both
// accounts in one ZooKeeper transaction, so the commit order decides who goes first on both:
// no deadlock without any sorting, and one write for the set.
func ExampleNewTxMultiMutex() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

	ml, err := recipes.NewTxMultiMutex(fw, "/accounts/7", "/accounts/42")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("order:", ml.Paths())
	held, err := ml.Acquire(ctx)
	if err != nil {
		log.Fatal(err) // none of the locks is held, none of our nodes is left
	}
	fmt.Println("held:", len(held.Leases()), held.Err() == nil)
	if err := held.Release(ctx); err != nil { // one transaction deletes the set
		log.Print(err)
	}
	// Output:
	// order: [/accounts/7 /accounts/42]
	// held: 2 true
}
