package main

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// After a short outage (the connection drops, the server is unreachable for a moment, the
// session survives) zklock, whose command was told and exited, waits for the reconnect and
// closes its session before it exits: its node is gone when it exits, and the next holder
// starts then, not a session timeout later (issue 26.3: 10.4-10.8 s after the command exited).
func TestExitAfterShortOutageDeletesNode(t *testing.T) {
	for _, sub := range []string{"exec", "elect"} {
		t.Run(sub, func(t *testing.T) {
			path := lockPath(t)
			proxy := zktest.NewProxy(t, shared.Servers()[0])
			t.Cleanup(func() { proxy.Blackhole(false) })
			a := startZklock(t, append([]string{"--servers", proxy.Addr(), "--session-timeout", "9s", sub, path, "--"},
				childArgs(t, "wait")...)...)
			a.expect(t, "ready", 30*time.Second)
			fw := zktest.Connect(t, shared)
			proxy.Blackhole(true) // the outage: the connection drops, a new one reaches nobody
			proxy.DropConnections()
			a.expect(t, "got terminated", 20*time.Second)
			proxy.Blackhole(false)
			if code := a.wait(t, 30*time.Second); code != exitLost {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, a.stderr)
			}
			exited := time.Now()
			kids, _, err := fw.Children(ctxFor(t, 10*time.Second), path)
			if err != nil && !errors.Is(err, framework.ErrNoNode) {
				t.Fatal(err)
			}
			if len(kids) > 0 {
				zktest.Eventually(t, 20*time.Second, "the node to go", func() bool {
					kids, _, _ := fw.Children(ctxFor(t, 10*time.Second), path)
					return len(kids) == 0
				})
				t.Fatalf("zklock exited with its node %v still there (gone %v later); stderr:\n%s",
					kids, time.Since(exited).Round(time.Millisecond), a.stderr)
			}
		})
	}
}
