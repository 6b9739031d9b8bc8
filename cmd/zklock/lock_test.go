package main

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// lockLines waits for zklock lock's two lines and returns the node and the token.
func lockLines(t *testing.T, pr *proc, p string) (string, int64) {
	t.Helper()
	node := strings.TrimPrefix(pr.expect(t, "ZKLOCK_NODE=", 30*time.Second), "ZKLOCK_NODE=")
	tok, err := strconv.ParseInt(strings.TrimPrefix(pr.expect(t, "ZKLOCK_TOKEN=", 10*time.Second), "ZKLOCK_TOKEN="), 10, 64)
	if !strings.HasPrefix(node, p+"/_c_") || err != nil || tok <= 0 {
		t.Fatalf("node %q, token %d (%v)", node, tok, err)
	}
	return node, tok
}

// zklock lock PATH holds the lock, printing its node and token, until SIGINT or SIGTERM, then
// releases it and exits 0; meanwhile others find it busy (issue 17.12).
func TestLockHoldsUntilSignal(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	srv := zk.ConnectString()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := lockPath(t)
			pr := startZklock(t, "--servers", srv, "lock", p)
			node, _ := lockLines(t, pr, p)
			if st, err := fw.Exists(ctxFor(t, 5*time.Second), node); err != nil || st == nil {
				t.Fatalf("node %s: %v, %v", node, st, err)
			}
			if _, errOut, code := runZklock(t, execArgs(t, srv, []string{"--try"}, p, "exit", "0")...); code != exitBusy {
				t.Fatalf("exec --try while held: exit %d; stderr:\n%s", code, errOut)
			}
			pr.cmd.Process.Signal(sig)
			if code := pr.wait(t, 20*time.Second); code != 0 {
				t.Fatalf("exit %d after %v; stderr:\n%s", code, sig, pr.stderr)
			}
			if kids, _, err := fw.Children(ctxFor(t, 5*time.Second), p); (err != nil && !errors.Is(err, framework.ErrNoNode)) || len(kids) != 0 {
				t.Fatalf("after release: %v (%v)", kids, err)
			}
			if pr.stderr.String() != "" {
				t.Fatalf("stderr not empty:\n%s", pr.stderr)
			}
		})
	}
}

// The lock kinds: --semaphore 2 admits two zklock lock, a third with --try is busy; --read
// twice share the lock, --write --timeout gives up (75).
func TestLockKinds(t *testing.T) {
	zk := shared
	srv := zk.ConnectString()
	sp := lockPath(t)
	a := startZklock(t, "--servers", srv, "lock", "--semaphore", "2", sp)
	b := startZklock(t, "--servers", srv, "lock", "--semaphore", "2", sp)
	lockLines(t, a, sp+"/leases")
	lockLines(t, b, sp+"/leases")
	rp := lockPath(t)
	r1 := startZklock(t, "--servers", srv, "lock", "--read", rp)
	r2 := startZklock(t, "--servers", srv, "lock", "--read", rp)
	lockLines(t, r1, rp)
	lockLines(t, r2, rp)
	checkExits(t, []exitCase{
		{"third lease", []string{"--servers", srv, "lock", "--try", "--semaphore", "2", sp}, exitBusy},
		{"writer", []string{"--servers", srv, "lock", "--write", "--timeout", "300ms", rp}, exitTimeout},
	})
	for _, pr := range []*proc{a, b, r1, r2} {
		pr.cmd.Process.Signal(syscall.SIGTERM)
		if code := pr.wait(t, 20*time.Second); code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, pr.stderr)
		}
	}
}

// A lock lost while held (the session expired) ends zklock lock with exit 76, said once.
func TestLockLost(t *testing.T) {
	zk := shared
	p := lockPath(t)
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	pr := startZklock(t, "--session-timeout", "4s", "--servers", proxy.Addr(), "lock", p)
	lockLines(t, pr, p)
	id, passwd := proxy.Session()
	expireSession(t, zk, id, passwd)
	if code := pr.wait(t, 30*time.Second); code != exitLost {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, pr.stderr)
	}
	if n := strings.Count(strings.TrimSpace(pr.stderr.String()), "\n") + 1; n != 1 || !strings.Contains(pr.stderr.String(), "lost") {
		t.Fatalf("loss reported %d times; stderr:\n%s", n, pr.stderr)
	}
}

// lock's usage errors.
func TestLockUsage(t *testing.T) {
	checkFlagErrors(t, []flagCase{
		{"no path", []string{"lock"}, "want a lock PATH"},
		{"command", []string{"lock", "/p", "--", "true"}, "zklock exec"},
		{"relative", []string{"lock", "p"}, `"p"`},
		{"semaphore 0", []string{"lock", "--semaphore", "0", "/p"}, "--semaphore"},
		{"kill grace", []string{"lock", "--kill-grace", "1s", "/p"}, "kill-grace"},
	})
}
