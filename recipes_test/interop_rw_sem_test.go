package recipes_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// rwCheck counts readers and writers inside the lock and records violations:
// two writers, or a writer with readers.
type rwCheck struct {
	mu               sync.Mutex
	readers, writers int
	maxReaders       int
	violations       int
}

func (c *rwCheck) enter(write bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		c.writers++
	} else {
		c.readers++
		c.maxReaders = max(c.maxReaders, c.readers)
	}
	if c.writers > 1 || (c.writers == 1 && c.readers > 0) {
		c.violations++
	}
}

func (c *rwCheck) leave(write bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		c.writers--
	} else {
		c.readers--
	}
}

// Java readers and writers (Curator 5.4) and ours share one read-write lock
// path: never two writers, never a writer with a reader.
func TestInteropReadWriteWithCurator(t *testing.T) {
	zk := shared
	p := lockPath(t)
	rwExclusionWith(t, p, "Curator", func() foreignRW { return startCurator(t, zk.Servers()) },
		func() *recipes.InterProcessReadWriteLock {
			rw, err := recipes.NewReadWriteLock(zktest.Connect(t, zk), p)
			if err != nil {
				t.Fatal(err)
			}
			return rw
		})
}

// Java semaphore clients (Curator 5.4) and ours share one semaphore path
// with a maximum of 2: never more than 2 leases held.
func TestInteropSemaphoreWithCurator(t *testing.T) {
	zk := shared
	p := lockPath(t)
	const maxLeases, rounds = 2, 15
	var holders zktest.Gauge
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		java := startCurator(t, zk.Servers())
		contend(t, &wg, rounds, &holders, 0, func() (func() error, error) {
			_, err := java.SemaphoreAcquire(ctxFor(t, 60*time.Second), p, maxLeases, 1, 50*time.Second)
			return func() error { return java.SemaphoreRelease(ctxFor(t, 20*time.Second), p) }, err
		})
	}
	for i := 0; i < 3; i++ {
		sem, err := recipes.NewSemaphore(zktest.Connect(t, zk), p, maxLeases)
		if err != nil {
			t.Fatal(err)
		}
		contend(t, &wg, rounds, &holders, time.Millisecond, func() (func() error, error) {
			leases, err := sem.Acquire(ctxFor(t, 60*time.Second), 1)
			if err != nil {
				return nil, err
			}
			return func() error { return leases[0].Release(context.Background()) }, nil
		})
	}
	wg.Wait()
	if n := holders.Max(); n > maxLeases {
		t.Fatalf("%d leases held at once across Go and Java, maximum %d", n, maxLeases)
	}
	if kids := zktest.Children(t, zktest.Connect(t, zk), p+"/leases"); len(kids) != 0 {
		t.Fatalf("leases left behind: %v", kids)
	}
}
