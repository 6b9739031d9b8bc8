package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// electArgs builds "GLOBALS --servers S elect FLAGS PATH -- child MODE...".
func electArgs(t *testing.T, servers string, flags []string, path string, mode ...string) []string {
	args := append([]string{"--servers", servers, "elect"}, flags...)
	args = append(args, path, "--")
	return append(args, childArgs(t, mode...)...)
}

// waitCandidates waits, bounded, until the election at p has n nodes.
func waitCandidates(t *testing.T, fw *framework.Framework, p string, n int) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("%d candidates on %s", n, p), func() bool {
		kids, _, err := fw.Children(ctxFor(t, 10*time.Second), p)
		return (err == nil || errors.Is(err, framework.ErrNoNode)) && len(kids) == n
	})
}

// The leader's command sees the path, its node, the term's token and its
// id; zklock exits with the command's code and resigns (no node is left).
func TestElectEnvAndExitCode(t *testing.T) {
	zk := server(t)
	p := lockPath(t)
	out, errOut, code := runZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "web-1"}, p, "env")...)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(l, "=")
		env[k] = v
	}
	tok, err := strconv.ParseInt(env["ZKLOCK_TOKEN"], 10, 64)
	if env["ZKLOCK_PATH"] != p || !strings.HasPrefix(env["ZKLOCK_NODE"], p+"/_c_") ||
		!strings.Contains(env["ZKLOCK_NODE"], "-lock-") || err != nil || tok <= 0 || env["ZKLOCK_ID"] != "web-1" {
		t.Fatalf("child environment %v", env)
	}
	fw := connect(t, zk.Servers())
	waitCandidates(t, fw, p, 0)
	srv := zk.ConnectString()
	for _, tt := range []struct {
		name string
		args []string
		want int
	}{
		{"exit 3", electArgs(t, srv, nil, p, "exit", "3"), 3},
		{"exit 42", electArgs(t, srv, nil, p, "exit", "42"), 42},
		{"not found", []string{"--servers", srv, "elect", p, "--", "/nonexistent/zklock-cmd"}, exitNotFound},
		{"invalid path", []string{"--servers", srv, "elect", "no-slash", "--", "true"}, exitFailure},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runZklock(t, tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.want, errOut)
			}
		})
	}
	waitCandidates(t, fw, p, 0)
}

// Two candidates on one path: their commands' intervals never overlap, and
// when the leader's command exits the other leads.
func TestElectOneLeaderAtATime(t *testing.T) {
	zk := server(t)
	p := lockPath(t)
	file := filepath.Join(t.TempDir(), "intervals")
	const n = 3
	procs := make([]*proc, n)
	for i := range procs {
		procs[i] = startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", fmt.Sprint("c", i)}, p, "interval", file, "300ms")...)
	}
	for _, pr := range procs {
		if code := pr.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, pr.stderr)
		}
	}
	checkNoOverlap(t, file, n)
}

// holders lists the leader, then the waiting candidate, with their ids; a
// candidate interrupted while waiting leaves (exit 130, its node deleted);
// the leader's command ending hands the leadership over.
func TestElectHoldersAndHandover(t *testing.T) {
	zk := server(t)
	fw := connect(t, zk.Servers())
	p := lockPath(t)
	a := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "alpha"}, p, "wait")...)
	a.expect(t, "ready", 30*time.Second)
	b := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "beta"}, p, "wait")...)
	c := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "gamma"}, p, "wait")...)
	waitCandidates(t, fw, p, 3)
	r := holdersJSON(t, zk.ConnectString(), p)
	if r.Kind != "mutex" || len(r.Holders) != 1 || r.Holders[0].Data != "alpha" || len(r.Queue) != 2 ||
		r.Queue[0].Data+","+r.Queue[1].Data != "beta,gamma" && r.Queue[0].Data+","+r.Queue[1].Data != "gamma,beta" {
		t.Fatalf("holders: %+v", r)
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	if code := c.wait(t, 20*time.Second); code != exitInterrupted {
		t.Fatalf("interrupted candidate: exit %d, want %d; stderr:\n%s", code, exitInterrupted, c.stderr)
	}
	waitCandidates(t, fw, p, 2)
	select {
	case l := <-b.lines:
		t.Fatalf("a second leader ran its command: %q", l)
	default:
	}
	a.cmd.Process.Signal(syscall.SIGTERM) // forwarded: the command exits 3
	a.expect(t, "got terminated", 10*time.Second)
	if code := a.wait(t, 20*time.Second); code != 3 {
		t.Fatalf("leader: exit %d, want the command's 3; stderr:\n%s", code, a.stderr)
	}
	b.expect(t, "ready", 30*time.Second)
	b.cmd.Process.Signal(syscall.SIGINT)
	b.expect(t, "got interrupt", 10*time.Second)
	if code := b.wait(t, 20*time.Second); code != 3 {
		t.Fatalf("second leader: exit %d; stderr:\n%s", code, b.stderr)
	}
	waitCandidates(t, fw, p, 0)
}

// A real expiry of the leader's session ends its term: its command is
// stopped (SIGKILL after --kill-grace if it ignores SIGTERM), zklock exits
// 76, and the other candidate leads.
func TestElectLostLeadershipStopsCommand(t *testing.T) {
	zk := server(t)
	for _, tt := range []struct{ mode, policy, want string }{
		{"wait", "standard", "got terminated"},
		{"ignore", "standard", ""},
		{"wait", "session", "got terminated"},
	} {
		t.Run(tt.mode+"-"+tt.policy, func(t *testing.T) {
			p := lockPath(t)
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			a := startZklock(t, append([]string{"--verbose", "--session-timeout", "4s", "--error-policy", tt.policy},
				electArgs(t, proxy.Addr(), []string{"--id", "alpha", "--kill-grace", "1s"}, p, tt.mode)...)...)
			ready := a.expect(t, "ready", 30*time.Second)
			pid, _ := strconv.Atoi(strings.TrimPrefix(ready, "ready "))
			b := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "beta"}, p, "wait")...)
			waitCandidates(t, connect(t, zk.Servers()), p, 2)
			id, passwd := proxy.Session()
			if want := fmt.Sprintf("session 0x%x", id); !strings.Contains(a.stderr.String(), want) {
				t.Fatalf("--verbose did not report %q:\n%s", want, a.stderr)
			}
			if err := zktest.ExpireSession(ctxFor(t, 10*time.Second), zk.Servers()[0], id, passwd); err != nil {
				t.Fatal(err)
			}
			if tt.want != "" {
				a.expect(t, tt.want, 20*time.Second)
			}
			if code := a.wait(t, 30*time.Second); code != exitLost {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, a.stderr)
			}
			if !strings.Contains(a.stderr.String(), "leadership lost") || !gone(pid) {
				t.Fatalf("command %d still running or loss not reported; stderr:\n%s", pid, a.stderr)
			}
			b.expect(t, "ready", 30*time.Second)
			b.cmd.Process.Signal(syscall.SIGTERM)
			if code := b.wait(t, 20*time.Second); code != 3 {
				t.Fatalf("new leader: exit %d; stderr:\n%s", code, b.stderr)
			}
		})
	}
}
