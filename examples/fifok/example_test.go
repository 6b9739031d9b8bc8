package fifok_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/examples/fifok"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A lock with two slots: two holders at once, a third waits for a release, in FIFO order.
func Example() {
	zk, err := zktest.Launch() // a real ZooKeeper on 127.0.0.1
	if err != nil {
		fmt.Println(err)
		return
	}
	defer zk.Close()
	fw, err := framework.New(zk.Servers())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	lock, err := fifok.NewLock(fw, "/jobs/slots", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	first, _ := lock.Acquire(ctx)
	second, _ := lock.Acquire(ctx)
	_, err = lock.TryAcquire(ctx)
	fmt.Println("third, at once:", errors.Is(err, recipes.ErrLocked))

	granted := make(chan *recipes.Lease)
	go func() {
		third, err := lock.Acquire(ctx) // waits while both slots are held
		if err != nil {
			fmt.Println(err)
		}
		granted <- third
	}()
	first.Release(ctx) // frees a slot: the third contender takes it, queued or not yet
	third := <-granted
	fmt.Println("third, after a release:", third.Err() == nil)
	t2, _ := second.Token(ctx)
	t3, _ := third.Token(ctx)
	fmt.Println("later holder, higher token:", t3 > t2)
	second.Release(ctx)
	third.Release(ctx)
	ps, _ := lock.Participants(ctx)
	fmt.Println("contenders left:", len(ps))
	// Output:
	// third, at once: true
	// third, after a release: true
	// later holder, higher token: true
	// contenders left: 0
}
