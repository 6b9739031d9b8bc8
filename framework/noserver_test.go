package framework_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// closedPort returns a loopback address nobody listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A wrong address fails loudly: each failed connect is logged at Warn with its address, and an
// operation that no server could serve fails with ErrNoServer naming the addresses tried (as
// go-zookeeper dialed them: a host name is resolved first).
func TestWrongAddressFailsLoudly(t *testing.T) {
	addr := closedPort(t)
	_, port, _ := net.SplitHostPort(addr)
	for _, server := range []string{addr, "localhost:" + port} {
		t.Run(server, func(t *testing.T) {
			var logs zktest.LogBuffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			f, err := framework.New([]string{server}, framework.WithLogger(logger),
				framework.WithConnectionTimeout(500*time.Millisecond), framework.WithRetryPolicy(retry.NTimes(0, 0)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			_, err = f.Exists(ctx, "/x")
			if !errors.Is(err, framework.ErrNoServer) || !errors.Is(err, zk.ErrNoServer) {
				t.Fatalf("Exists against %s = %v, want ErrNoServer", server, err)
			}
			if !strings.Contains(err.Error(), ":"+port+" (") {
				t.Fatalf("error %q does not name the address tried", err)
			}
			t.Logf("error: %v", err)
			if got := logs.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, ":"+port) {
				t.Fatalf("no Warn log naming the address; logs:\n%s", got)
			}
		})
	}
}

// Issue 17.5: a wrong port made WaitConnected wait for its whole ctx and return a bare
// "context deadline exceeded". It now names the address and why, matching both ErrNoServer and
// the ctx's error; an operation that ran out of ctx waiting for a connection says the same.
func TestWaitConnectedSaysWhy(t *testing.T) {
	addr := closedPort(t)
	f, err := framework.New([]string{addr})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	err = f.WaitConnected(ctx)
	if !errors.Is(err, framework.ErrNoServer) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitConnected = %v, want ErrNoServer and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("WaitConnected = %q, want the address %s and why", err, addr)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel2()
	_, err = f.Exists(ctx2, "/x")
	if !errors.Is(err, framework.ErrNoServer) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Exists = %v, want ErrNoServer and DeadlineExceeded naming %s", err, addr)
	}
}
