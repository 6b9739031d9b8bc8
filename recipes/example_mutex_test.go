package recipes_test

import (
	"errors"
	"fmt"
	"log"
	"path"
	"strings"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// Two processes (here: two sessions) take turns on one lock. The second waits, watching only
// the first one's node, and gets a larger fencing token.
func ExampleInterProcessMutex() {
	ctx, cancel := exampleCtx()
	defer cancel()
	a, b := connect(ctx), connect(ctx)
	defer a.Close()
	defer b.Close()

	ma, _ := recipes.NewMutex(a, "/locks/orders")
	mb, _ := recipes.NewMutex(b, "/locks/orders")

	first, err := ma.Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	// The node has Curator's layout: _c_<uuid>-lock-<sequence>.
	name := path.Base(first.Path())
	fmt.Println(strings.HasPrefix(name, "_c_"), strings.Contains(name, "-lock-"))

	if _, err := mb.TryAcquire(ctx); err != nil {
		fmt.Println("busy:", errors.Is(err, recipes.ErrLocked))
	}
	next := make(chan *recipes.Lease)
	go func() {
		l, err := mb.Acquire(ctx) // waits for the first holder
		if err != nil {
			log.Fatal(err)
		}
		next <- l
	}()
	t1, _ := first.Token(ctx)
	if err := first.Release(ctx); err != nil {
		log.Fatal(err)
	}
	second := <-next
	t2, err := second.Token(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("larger token:", t2 > t1)

	select {
	case <-second.Done(): // closes on Suspended or Lost: stop using the resource
	default:
		fmt.Println("still held:", second.Err() == nil)
	}
	if err := second.Release(ctx); err != nil {
		log.Fatal(err)
	}
	// Output:
	// true true
	// busy: true
	// larger token: true
	// still held: true
}

// Reentrancy goes through the lease, never the goroutine or the context: a function that must
// hold the lock takes the lease and re-enters it, at no ZooKeeper cost.
func ExampleLease_Reenter() {
	ctx, cancel := exampleCtx()
	defer cancel()
	fw := connect(ctx)
	defer fw.Close()
	m, _ := recipes.NewMutex(fw, "/locks/reentrant")

	lease, err := m.Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	inner := func(l *recipes.Lease) {
		if err := l.Reenter(); err != nil {
			log.Fatal(err)
		}
		defer l.Release(ctx) // gives back one acquisition: the lock stays held
		fmt.Println("inner holds:", l.Err() == nil)
	}
	inner(lease)
	fmt.Println("still held after inner:", lease.Err() == nil)
	if err := lease.Release(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("released:", errors.Is(lease.Err(), recipes.ErrReleased))
	// Output:
	// inner holds: true
	// still held after inner: true
	// released: true
}
