package zktest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// In a test, Start gives a real server that t.Cleanup stops; a Proxy in
// front of it injects faults into one client's connection.
func Example() {
	t := &testing.T{} // in a real test, use the test's *testing.T
	c := zktest.Start(t)
	p := zktest.NewProxy(t, c.Member(0).Addr())

	conn, _, err := zk.Connect([]string{p.Addr()}, 2*time.Second, zk.WithDialer(p.Dialer()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	p.DropConnections() // the client sees Disconnected, then reconnects with the same session

	id, passwd := p.Session()
	ctx := context.Background()
	if err := zktest.ExpireSession(ctx, c.Member(0).Addr(), id, passwd); err != nil {
		t.Fatal(err) // the client now sees StateExpired, then gets a new session
	}
	fmt.Println(p.Requests()[zktest.OpCreate])
}

// Outside tests (demos, benchmarks), Launch returns a cluster the caller
// closes.
func ExampleLaunch() {
	c, err := zktest.Launch(zktest.WithForceSync(true))
	if err != nil {
		fmt.Println(err) // mentions "apt-get install -y zookeeper" if it is missing
		return
	}
	defer c.Close()
	fmt.Println("connect to", c.ConnectString())
}

// A three-server ensemble; kill the leader and wait for a new one.
func ExampleStartEnsemble() {
	t := &testing.T{} // in a real test, use the test's *testing.T
	c := zktest.StartEnsemble(t, 3)
	ctx := context.Background()
	for i := range c.Size() {
		if mode, _ := c.Member(i).Mode(ctx); mode == "leader" {
			_ = c.Member(i).Kill()
		}
	}
}

// Fail the package's tests if they leave goroutines behind.
func ExampleVerifyNoLeaks() {
	// func TestMain(m *testing.M) { os.Exit(zktest.VerifyNoLeaks(m)) }
}
