package recipes_test

import (
	"context"
	"log"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The examples run against one local ZooKeeper started by zktest, so that go test proves
// what they print. In your code, pass your ensemble's addresses to framework.New instead.
var (
	exampleOnce sync.Once
	exampleZK   *zktest.Cluster
)

func TestMain(m *testing.M) {
	code := m.Run()
	if exampleZK != nil {
		exampleZK.Close()
	}
	os.Exit(code)
}

// servers returns the addresses of the examples' ZooKeeper, started on first use.
func servers() []string {
	exampleOnce.Do(func() {
		zk, err := zktest.Launch()
		if err != nil {
			log.Fatal(err)
		}
		exampleZK = zk
	})
	return exampleZK.Servers()
}

// connect opens a connected framework on the examples' ZooKeeper.
func connect(ctx context.Context) *framework.Framework {
	fw, err := framework.New(servers())
	if err != nil {
		log.Fatal(err)
	}
	if err := fw.WaitConnected(ctx); err != nil {
		log.Fatal(err)
	}
	return fw
}

// exampleCtx bounds an example.
func exampleCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}
