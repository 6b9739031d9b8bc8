package framework_test

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// A Framework connects in the background; operations are namespace-relative and run under a
// context and the retry policy. A holder watches its session epoch to learn when it may have lost
// what it holds.
//
// (The example runs against the package tests' local ZooKeeper; pass your ensemble's addresses.)
func Example() {
	f, err := framework.New(shared.Servers(),
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
		fmt.Println("lost", session.Err())
	default:
		fmt.Println("holding:", framework.IsProtected(path.Base(node)), strings.HasPrefix(node, "/locks/job/"))
	}
	// Output: holding: true true
}
