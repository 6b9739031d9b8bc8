package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// expectLeader waits for the listener's next line and checks that it names id (or "no
// leader" for id ""), with the token of the leader's node.
func expectLeader(t *testing.T, fw *framework.Framework, l *proc, id string) {
	t.Helper()
	if id == "" {
		l.expect(t, "no leader", 30*time.Second)
		return
	}
	line := l.expect(t, "leader="+id+" ", 30*time.Second)
	var node string
	var token int64
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "node":
			node = v
		case "token":
			token, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	st, err := fw.Exists(ctxFor(t, 5*time.Second), node)
	if err != nil || st == nil || st.Czxid != token {
		t.Fatalf("line %q: node %v (%v), want token = its czxid", line, st, err)
	}
}

// zklock elect --listen prints the leader and every change, with id and token, without taking
// part, until a signal (issue 17.13): no leader, alpha, beta after alpha resigned, no leader
// after beta did (the container may be reaped: then the listener waits for its creation),
// gamma.
func TestElectListen(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	srv := zk.ConnectString()
	p := lockPath(t)
	l := startZklock(t, "--servers", srv, "elect", "--listen", p)
	expectLeader(t, fw, l, "")
	start := func(id string) *proc {
		return startZklock(t, electArgs(t, srv, []string{"--id", id}, p, "wait")...)
	}
	a := start("alpha")
	a.expect(t, "ready", 30*time.Second)
	expectLeader(t, fw, l, "alpha")
	b := start("beta")
	waitCandidates(t, fw, p, 2) // the listener has no node
	for _, pr := range []struct {
		p    *proc
		next string
	}{{a, "beta"}, {b, ""}} {
		pr.p.cmd.Process.Signal(syscall.SIGTERM)
		if code := pr.p.wait(t, 20*time.Second); code != 3 {
			t.Fatalf("candidate exit %d; stderr:\n%s", code, pr.p.stderr)
		}
		expectLeader(t, fw, l, pr.next)
		if pr.next != "" {
			b.expect(t, "ready", 30*time.Second) // its command handles SIGTERM from now on
		}
	}
	c := start("gamma")
	expectLeader(t, fw, l, "gamma")
	l.cmd.Process.Signal(syscall.SIGTERM)
	if code := l.wait(t, 10*time.Second); code != 0 || l.stderr.String() != "" {
		t.Fatalf("listener exit %d; stderr:\n%s", code, l.stderr)
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	c.wait(t, 20*time.Second)
}

// --listen takes a PATH and no command.
func TestElectListenUsage(t *testing.T) {
	checkFlagErrors(t, []flagCase{
		{"command", []string{"elect", "--listen", "/p", "--", "true"}, "--listen takes no command"},
		{"two paths", []string{"elect", "--listen", "/p", "/q"}, "one election PATH"},
		{"relative", []string{"elect", "--listen", "p"}, `"p"`},
	})
}

// listen returns at once when its ctx ends; the one watch it left pending is the session's and
// ends with the framework, leaving no goroutine behind.
func TestListenEndsWithItsContext(t *testing.T) {
	zktest.CheckGoroutines(t)
	fw := zktest.Connect(t, shared)
	p := lockPath(t)
	sel, err := leader.NewSelector(fw, p, func(context.Context, *leader.Term) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, exists := range []bool{false, true} { // an exists watch, then a children watch
		if exists {
			if _, err := fw.Create(ctxFor(t, 5*time.Second), p, nil); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		r, w := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- listen(ctx, fw, sel, w); w.Close() }()
		line, err := bufio.NewReader(r).ReadString('\n')
		if err != nil || line != "no leader\n" {
			t.Fatalf("first line %q, %v", line, err)
		}
		go io.Copy(io.Discard, r)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("listen = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("listen did not return after its ctx ended")
		}
		if n := fw.Watches(); n != 1 {
			t.Fatalf("%d live watches, want the one pending (it ends with the session)", n)
		}
	}
	fw.Delete(ctxFor(t, 5*time.Second), p)
}
