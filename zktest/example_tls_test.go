package zktest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A ZooKeeper that serves clients over TLS only on the addresses it lists, with a throwaway CA:
// connect with framework.WithTLS and the cluster's client config (which leaves ServerName to
// the option). In a test, zktest.Start(t, zktest.WithTLS()) and zktest.Connect(t, c) do the same.
func ExampleWithTLS() {
	c, err := zktest.Launch(zktest.WithTLS())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fw, err := framework.New(c.Servers(), framework.WithTLS(c.TLS().ClientConfig()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		fmt.Println(err)
		return
	}
	p, err := fw.Create(ctx, "/over-tls", []byte("hello"), framework.WithMode(framework.Ephemeral))
	fmt.Println("created", p, err)
	// Output: created /over-tls <nil>
}
