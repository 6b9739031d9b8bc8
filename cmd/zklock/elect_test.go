package main

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// waitCandidates waits, bounded, until the election at p has n nodes.
func waitCandidates(t *testing.T, fw *framework.Framework, p string, n int) {
	t.Helper()
	zktest.Eventually(t, 30*time.Second, fmt.Sprintf("%d candidates on %s", n, p), func() bool {
		kids, _, err := fw.Children(ctxFor(t, 10*time.Second), p)
		return (err == nil || errors.Is(err, framework.ErrNoNode)) && len(kids) == n
	})
}

// The leader's command sees the path, its node, the term's token and its
// id; zklock exits with the command's code and resigns (no node is left).
func TestElectEnvAndExitCode(t *testing.T) {
	zk := shared
	p := lockPath(t)
	if env := checkEnv(t, "elect", []string{"--id", "web-1"}, p); !strings.Contains(env["ZKLOCK_NODE"], "-lock-") || env["ZKLOCK_ID"] != "web-1" {
		t.Fatalf("child environment %v", env)
	}
	fw := zktest.Connect(t, zk)
	waitCandidates(t, fw, p, 0)
	srv := zk.ConnectString()
	checkExits(t, []exitCase{
		{"exit 3", electArgs(t, srv, nil, p, "exit", "3"), 3},
		{"exit 42", electArgs(t, srv, nil, p, "exit", "42"), 42},
		{"not found", []string{"--servers", srv, "elect", p, "--", "/nonexistent/zklock-cmd"}, exitNotFound},
		{"invalid path", []string{"--servers", srv, "elect", "no-slash", "--", "true"}, exitUsage},
	})
	waitCandidates(t, fw, p, 0)
}

// Two candidates on one path: their commands' intervals never overlap, and
// when the leader's command exits the other leads.
func TestElectOneLeaderAtATime(t *testing.T) {
	checkOneAtATime(t, "elect", "--id", 3, "300ms")
}

// holders lists the leader, then the waiting candidate, with their ids; a
// candidate interrupted while waiting leaves (exit 130, its node deleted);
// the leader's command ending hands the leadership over.
func TestElectHoldersAndHandover(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	a := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "alpha"}, p, "wait")...)
	a.expect(t, "ready", 30*time.Second)
	b := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "beta"}, p, "wait")...)
	c := startZklock(t, electArgs(t, zk.ConnectString(), []string{"--id", "gamma"}, p, "wait")...)
	waitCandidates(t, fw, p, 3)
	r := holdersJSON(t, zk.ConnectString(), p)
	if r.Kind != recipes.KindSelector || len(r.Holders) != 1 || r.Holders[0].Data != "alpha" || len(r.Queue) != 2 ||
		r.Queue[0].Data+","+r.Queue[1].Data != "beta,gamma" && r.Queue[0].Data+","+r.Queue[1].Data != "gamma,beta" {
		t.Fatalf("holders: %+v", r)
	}
	// zklock's own candidates show as zklock (issue 26.6), while their data stays the id
	// that Curator's getParticipants reads.
	for _, n := range append(r.Holders, r.Queue...) {
		if n.Origin != originZklock || n.Kind != recipes.KindSelector {
			t.Fatalf("candidate %+v: want origin %q, kind %q", n, originZklock, recipes.KindSelector)
		}
	}
	if out, _, code := runZklock(t, "--servers", zk.ConnectString(), "holders", p); code != 0 ||
		strings.Count(out, " "+string(originZklock)+" ") != 3 {
		t.Fatalf("holders: exit %d, want each of the 3 candidates shown as zklock:\n%s", code, out)
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
	checkLostStopsCommand(t, "elect", []string{"--id", "alpha"}, "leadership lost", func(t *testing.T, p string) func() {
		b := startZklock(t, electArgs(t, shared.ConnectString(), []string{"--id", "beta"}, p, "wait")...)
		waitCandidates(t, zktest.Connect(t, shared), p, 2)
		return func() {
			b.expect(t, "ready", 30*time.Second)
			b.cmd.Process.Signal(syscall.SIGTERM)
			if code := b.wait(t, 20*time.Second); code != 3 {
				t.Fatalf("new leader: exit %d; stderr:\n%s", code, b.stderr)
			}
		}
	})
}
