package framework_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// A Framework connects in the background; operations are namespace-relative and run under a
// context and the retry policy. A holder watches its session epoch to learn when it may have lost
// what it holds.
func Example() {
	f, err := framework.New([]string{"127.0.0.1:2181"},
		framework.WithNamespace("myapp"),
		framework.WithRetryPolicy(retry.ExponentialBackoff(100*time.Millisecond, 3)))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.WaitConnected(ctx); err != nil {
		fmt.Println("no ZooKeeper:", err)
		return
	}
	node, err := f.Create(ctx, "/locks/job/lock-", nil,
		framework.WithMode(framework.EphemeralSequential), framework.Protected(), framework.CreatingParents())
	if err != nil {
		fmt.Println("create:", err)
		return
	}
	session := f.Session()
	select {
	case <-session.Done():
		fmt.Println("lost", node, session.Err())
	default:
		fmt.Println("holding", node)
	}
}
