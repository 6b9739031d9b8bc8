package recipes_test

import (
	"context"
	"log"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// At most 10 leases exist at a time across all processes using the path;
// this one takes 2 under one deadline and gives them back.
func ExampleInterProcessSemaphoreV2() {
	fw, err := framework.New([]string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	sem, err := recipes.NewSemaphore(fw, "/semaphores/db-connections", 10)
	if err != nil {
		log.Fatal(err)
	}
	leases, err := sem.Acquire(ctx, 2)
	if err != nil {
		log.Fatal(err) // none held: a failed Acquire returns what it took
	}
	defer func() {
		for _, l := range leases {
			if err := l.Release(context.Background()); err != nil {
				log.Print(err)
			}
		}
	}()
	for _, l := range leases {
		log.Print("holding ", l.NodeName())
	}
}

// A semaphore mutex is not reentrant and may be released by any goroutine.
func ExampleInterProcessSemaphoreMutex() {
	fw, err := framework.New([]string{"127.0.0.1:2181"})
	if err != nil {
		log.Fatal(err)
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	m, err := recipes.NewSemaphoreMutex(fw, "/locks/nightly-job")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := m.Acquire(ctx); err != nil {
		log.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- m.Release(context.Background()) }()
	if err := <-done; err != nil {
		log.Print(err)
	}
}
