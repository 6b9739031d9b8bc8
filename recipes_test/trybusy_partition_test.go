package recipes_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// partitionOnBusy is the exclusive driver, but the first decision that we do not hold cuts the
// connection (a blackhole): the partition falls between the listing that found the lock busy
// and the end of TryAcquire.
type partitionOnBusy struct {
	driver.Driver
	once *sync.Once
	cut  func()
}

func (d partitionOnBusy) Decide(v driver.View) driver.Decision {
	dec := d.Driver.Decide(v)
	if !dec.Holds {
		d.once.Do(d.cut)
	}
	return dec
}

// A TryAcquire that finds the lock busy reads the stat of the node ahead (a squatter check)
// while it deletes its own node. That read is part of what the caller waits for: under a
// partition it must get the cleanup's bound (cleanupWait), not the retry policy's and the
// session's, so that a TryAcquire without a deadline still answers "busy" at once instead of
// waiting for the connection to be given up (2/3 of a 20 s session here).
func TestTryAcquireBusyUnderPartitionIsBounded(t *testing.T) {
	zk := shared
	p := lockPath(t)
	holder := zktest.Connect(t, zk)
	held := mustAcquire(t, mustMutex(t, holder, p), 10*time.Second)
	defer mustRelease(t, held)

	proxy := zktest.NewProxy(t, zk.Servers()[0])
	fw := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
	defer proxy.Blackhole(false)
	lk, err := recipes.NewLock(fw, p, partitionOnBusy{Driver: driver.Exclusive(), once: &sync.Once{},
		cut: func() { proxy.Blackhole(true) }})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := lk.TryAcquire(context.Background())
		done <- err
	}()
	// cleanupWait is 1 s; the connection is given up after 13 s
	err = zktest.Receive(t, done, 8*time.Second, "TryAcquire on a busy lock to return under a partition (does the stat read of the node ahead wait for the connection?)")
	if !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("TryAcquire: %v, want ErrLocked", err)
	}
}
