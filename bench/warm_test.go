package main

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The server warm-up runs lock cycles for its duration and leaves nothing behind: no node of
// its own under the run's root, no session.
func TestServerWarmup(t *testing.T) {
	srv := zktest.Start(t)
	root := zktest.UniquePath(t, "/warm")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := zkpeers.WarmServer(ctx, srv.Servers()[0], root, 4, 300*time.Millisecond)
	if err != nil || n == 0 {
		t.Fatalf("WarmServer = %d cycles, %v; want some cycles, no error", n, err)
	}
	conn, _, err := zk.Connect(srv.Servers(), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	kids, _, err := conn.Children(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 0 {
		t.Fatalf("the warm-up left %v under %s", kids, root)
	}
	if n, err := zkpeers.WarmServer(ctx, srv.Servers()[0], root, 4, 0); n != 0 || err != nil {
		t.Fatalf("WarmServer for 0 s = %d, %v; want nothing done", n, err)
	}
}
