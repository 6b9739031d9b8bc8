package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// At most 3 leases exist at a time across all processes using the path; this one takes 2
// under one deadline, finds the third taken by another, and gives its leases back.
func ExampleInterProcessSemaphoreV2() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

	sem, err := recipes.NewSemaphore(fw, "/semaphores/db-connections", 3)
	if err != nil {
		log.Fatal(err)
	}
	leases, err := sem.Acquire(ctx, 2)
	if err != nil {
		log.Fatal(err) // none held: a failed Acquire returns what it took
	}
	fmt.Println("holding", len(leases))
	third, err := sem.TryAcquire(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	_, err = sem.TryAcquire(ctx, 1)
	fmt.Println("fourth refused:", errors.Is(err, recipes.ErrLocked))
	if err := sem.ReturnAll(ctx, append(leases, third...)); err != nil {
		log.Fatal(err)
	}
	// Output:
	// holding 2
	// fourth refused: true
}

// A shared maximum lives in one node that every process reads: SharedCount sets it.
func ExampleNewSharedSemaphore() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

	count, _ := recipes.NewSharedCount(fw, "/semaphores/workers-max")
	if err := count.Set(ctx, 1); err != nil {
		log.Fatal(err)
	}
	sem, err := recipes.NewSharedSemaphore(fw, "/semaphores/workers", count.Path())
	if err != nil {
		log.Fatal(err)
	}
	one, err := sem.Acquire(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	_, err = sem.TryAcquire(ctx, 1)
	fmt.Println("second refused at a maximum of 1:", errors.Is(err, recipes.ErrLocked))
	if err := count.Set(ctx, 2); err != nil { // raising it wakes waiters at once
		log.Fatal(err)
	}
	two, err := sem.TryAcquire(ctx, 1)
	fmt.Println("second granted at 2:", err == nil)
	if err := sem.ReturnAll(ctx, append(one, two...)); err != nil {
		log.Fatal(err)
	}
	// Output:
	// second refused at a maximum of 1: true
	// second granted at 2: true
}

// A semaphore mutex is not reentrant and may be released by any goroutine.
func ExampleInterProcessSemaphoreMutex() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()

	m, err := recipes.NewSemaphoreMutex(fw, "/locks/nightly-job")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := m.Acquire(ctx); err != nil {
		log.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- m.Release(context.Background()) }()
	fmt.Println("released from another goroutine:", <-done == nil)
	fmt.Println("held:", m.IsAcquired())
	// Output:
	// released from another goroutine: true
	// held: false
}
