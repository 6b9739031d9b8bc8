package recipes_test

import (
	"context"
	"fmt"
	"log"
	"path"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Two processes (here: two sessions) take turns on one lock. The second
// waits, watching only the first one's node, and gets a larger fencing token.
func ExampleInterProcessMutex() {
	zk, err := zktest.Launch() // a local ZooKeeper; use your ensemble's addresses instead
	if err != nil {
		log.Fatal(err)
	}
	defer zk.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	connect := func() *framework.Framework {
		fw, err := framework.New(zk.Servers())
		if err != nil {
			log.Fatal(err)
		}
		if err := fw.WaitConnected(ctx); err != nil {
			log.Fatal(err)
		}
		return fw
	}
	a, b := connect(), connect()
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
		fmt.Println("busy:", strings.Contains(err.Error(), "held by another"))
	}
	next := make(chan *recipes.Lease)
	go func() {
		l, err := mb.Acquire(ctx) // waits for the first holder
		if err != nil {
			log.Fatal(err)
		}
		next <- l
	}()
	if err := first.Release(ctx); err != nil {
		log.Fatal(err)
	}
	second := <-next
	t1, _ := first.Token(ctx)
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

// Reentrancy goes through the lease, never the goroutine or the context: a
// function that must hold the lock takes the lease and re-enters it.
func ExampleLease_Reenter() {
	var m *recipes.InterProcessMutex // from recipes.NewMutex
	ctx := context.Background()
	if m == nil {
		return // (sketch: needs a server)
	}
	lease, err := m.Acquire(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Release(ctx)
	inner := func(l *recipes.Lease) {
		if err := l.Reenter(); err != nil { // counts, no ZooKeeper traffic
			log.Fatal(err)
		}
		defer l.Release(ctx)
	}
	inner(lease)
}
