package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The command sees the lock path, its node and the token; zklock exits with
// its code; the node is gone afterwards.
func TestExecEnvAndExitCode(t *testing.T) {
	zk := shared
	p := lockPath(t)
	checkEnv(t, "exec", nil, p)
	fw := zktest.Connect(t, zk)
	if kids, _, err := fw.Children(ctxFor(t, 10*time.Second), p); (err != nil && !errors.Is(err, framework.ErrNoNode)) || len(kids) != 0 {
		t.Fatalf("after exit the lock has %v (%v), want no node", kids, err)
	}
	for _, n := range []int{0, 3, 42} {
		_, errOut, code := runZklock(t, execArgs(t, zk.ConnectString(), []string{"--write"}, p, "exit", strconv.Itoa(n))...)
		if code != n {
			t.Fatalf("child exit %d: zklock exit %d; stderr:\n%s", n, code, errOut)
		}
	}
}

// Exit codes of a busy lock under --try and --timeout, for every lock kind,
// and of a command that cannot run.
func TestExecExitCodes(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	m, err := recipes.NewMutex(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	held, err := m.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release(ctxFor(t, 10*time.Second))
	sp := lockPath(t)
	s, _ := recipes.NewSemaphore(fw, sp, 1)
	if _, err := s.Acquire(ctxFor(t, 10*time.Second), 1); err != nil {
		t.Fatal(err)
	}
	noexec := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := zk.ConnectString()
	checkExits(t, []exitCase{
		{"try busy mutex", execArgs(t, srv, []string{"--try"}, p, "exit", "0"), exitBusy},
		{"timeout mutex", execArgs(t, srv, []string{"--timeout", "300ms"}, p, "exit", "0"), exitTimeout},
		{"try busy semaphore", execArgs(t, srv, []string{"--try", "--semaphore", "1"}, sp, "exit", "0"), exitBusy},
		{"timeout semaphore", execArgs(t, srv, []string{"--timeout", "300ms", "--semaphore", "1"}, sp, "exit", "0"), exitTimeout},
		{"not found", []string{"--servers", srv, "exec", lockPath(t), "--", "/nonexistent/zklock-cmd"}, exitNotFound},
		{"not executable", []string{"--servers", srv, "exec", lockPath(t), "--", noexec}, exitCannotRun},
		{"invalid path", []string{"--servers", srv, "exec", "no-slash", "--", "true"}, exitUsage},
	})
}

// Several zklock processes on one path: the commands' intervals never
// overlap.
func TestExecMutualExclusion(t *testing.T) {
	checkOneAtATime(t, "exec", "--name", 4, "150ms")
}

// checkNoOverlap reads "start end" lines and fails if two intervals overlap.
func checkNoOverlap(t *testing.T, file string, want int) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type interval struct{ start, end int64 }
	var ivs []interval
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var iv interval
		if _, err := fmt.Sscanf(l, "%d %d", &iv.start, &iv.end); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		ivs = append(ivs, iv)
	}
	if len(ivs) != want {
		t.Fatalf("%d intervals, want %d", len(ivs), want)
	}
	slices.SortFunc(ivs, func(a, b interval) int { return int(a.start - b.start) })
	for i := 1; i < len(ivs); i++ {
		if ivs[i].start < ivs[i-1].end {
			t.Fatalf("intervals overlap: %v and %v", ivs[i-1], ivs[i])
		}
	}
}

// --semaphore N admits exactly N: the (N+1)th waits with its lease queued
// until a holder's command ends (through a forwarded SIGTERM).
func TestExecSemaphoreAdmitsN(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	const n = 2
	var procs []*proc
	for i := 0; i < n; i++ {
		pr := startZklock(t, execArgs(t, zk.ConnectString(), []string{"--semaphore", strconv.Itoa(n)}, p, "wait")...)
		pr.expect(t, "ready", 30*time.Second)
		procs = append(procs, pr)
	}
	extra := startZklock(t, execArgs(t, zk.ConnectString(), []string{"--semaphore", strconv.Itoa(n)}, p, "wait")...)
	zktest.Eventually(t, 30*time.Second, "the third lease node", func() bool {
		kids, _, _ := fw.Children(ctxFor(t, 10*time.Second), p+"/leases")
		return len(kids) == n+1
	})
	select {
	case l := <-extra.lines:
		t.Fatalf("a third holder was admitted: %q", l)
	default:
	}
	procs[0].cmd.Process.Signal(syscall.SIGTERM)
	procs[0].expect(t, "got terminated", 10*time.Second)
	if code := procs[0].wait(t, 20*time.Second); code != 3 {
		t.Fatalf("exit %d, want the child's 3; stderr:\n%s", code, procs[0].stderr)
	}
	extra.expect(t, "ready", 30*time.Second)
	for _, pr := range []*proc{procs[1], extra} {
		pr.cmd.Process.Signal(syscall.SIGINT)
		pr.expect(t, "got interrupt", 10*time.Second)
		if code := pr.wait(t, 20*time.Second); code != 3 {
			t.Fatalf("exit %d; stderr:\n%s", code, pr.stderr)
		}
	}
}

// SIGINT, SIGTERM and SIGHUP reach the command; zklock ends with its code,
// or 128+N when the signal killed it.
func TestExecForwardsSignals(t *testing.T) {
	zk := shared
	tests := []struct {
		sig  syscall.Signal
		mode string
		want string
		code int
	}{
		{syscall.SIGINT, "wait", "got interrupt", 3},
		{syscall.SIGTERM, "wait", "got terminated", 3},
		{syscall.SIGHUP, "ignore", "", 128 + int(syscall.SIGHUP)},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			pr := startZklock(t, execArgs(t, zk.ConnectString(), nil, lockPath(t), tt.mode)...)
			pr.expect(t, "ready", 30*time.Second)
			pr.cmd.Process.Signal(tt.sig)
			if tt.want != "" {
				pr.expect(t, tt.want, 10*time.Second)
			}
			if code := pr.wait(t, 20*time.Second); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, pr.stderr)
			}
		})
	}
}

// A real expiry of zklock's own session ends its lease: the command gets
// SIGTERM (or SIGKILL after --kill-grace if it ignores it) and zklock exits
// with exitLost. --verbose reports the session id.
func TestExecLostLockStopsCommand(t *testing.T) {
	checkLostStopsCommand(t, "exec", nil, "lock may be lost", nil)
}

// What the command leaves running in its process group is stopped when it
// exits, before the lock is released.
func TestExecStopsLeftovers(t *testing.T) {
	zk := shared
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := fmt.Sprintf("sleep 300 & echo $! > %s; echo started", pidFile)
	pr := startZklock(t, "--servers", zk.ConnectString(), "exec", "--kill-grace", "5s", lockPath(t), "--", "sh", "-c", script)
	pr.expect(t, "started", 30*time.Second)
	if code := pr.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, pr.stderr)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	zktest.Eventually(t, 10*time.Second, "the background job to be reaped", func() bool { return pid > 0 && gone(pid) })
}

// A signal while zklock waits for the lock ends it with exitInterrupted,
// its queued node deleted, the command never started.
func TestExecInterruptedWhileWaiting(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	m, _ := recipes.NewMutex(fw, p)
	held, err := m.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release(ctxFor(t, 10*time.Second))
	pr := startZklock(t, execArgs(t, zk.ConnectString(), nil, p, "exit", "0")...)
	zktest.Eventually(t, 30*time.Second, "zklock to queue", func() bool {
		kids, _, _ := fw.Children(ctxFor(t, 10*time.Second), p)
		return len(kids) == 2
	})
	pr.cmd.Process.Signal(syscall.SIGINT)
	if code := pr.wait(t, 20*time.Second); code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, pr.stderr)
	}
	if kids, _, err := fw.Children(ctxFor(t, 10*time.Second), p); err != nil || len(kids) != 1 {
		t.Fatalf("after the interrupt the lock has %v (%v), want only the holder", kids, err)
	}
}

// holders shows zklock's identity; zklock revoke stops a --revocable
// holder's command, which exits 77; revoking a holder without --revocable is refused
// (exit 70: its identity says it would not react) and the holder runs on.
func TestExecRevocable(t *testing.T) {
	zk := shared
	srv := zk.ConnectString()
	for _, revocable := range []bool{true, false} {
		t.Run(fmt.Sprint("revocable=", revocable), func(t *testing.T) {
			p := lockPath(t)
			flags := []string{"--name", "nightly", "--kill-grace", "2s"}
			if revocable {
				flags = append(flags, "--revocable")
			}
			pr := startZklock(t, execArgs(t, srv, flags, p, "wait")...)
			pr.expect(t, "ready", 30*time.Second)
			r := holdersJSON(t, srv, p)
			if len(r.Holders) != 1 {
				t.Fatalf("holders %+v, want one", r.Holders)
			}
			if h := r.Holders[0]; h.Identity == nil || h.Identity.Name != "nightly" ||
				h.Identity.PID != pr.cmd.Process.Pid || h.Origin != recipes.OriginGo {
				t.Fatalf("holder %+v, want zklock's identity (pid %d)", h, pr.cmd.Process.Pid)
			}
			_, errOut, code := runZklock(t, "--servers", srv, "revoke", r.Holders[0].Node)
			switch {
			case revocable && code != 0:
				t.Fatalf("revoke: exit %d\n%s", code, errOut)
			case !revocable && (code != exitFailure || !strings.Contains(errOut, "not revocable")):
				// zklock's identity says the holder ignores revocations: refused, nothing written.
				t.Fatalf("revoke of a holder without --revocable: exit %d, want %d saying it is not revocable\n%s", code, exitFailure, errOut)
			}
			if !revocable {
				pr.cmd.Process.Signal(syscall.SIGTERM)
			}
			pr.expect(t, "got terminated", 20*time.Second)
			want := 3
			if revocable {
				want = exitRevoked
			}
			if code := pr.wait(t, 20*time.Second); code != want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, want, pr.stderr)
			}
		})
	}
}

// --error-policy on a dropped connection (the session survives): standard
// stops the command (Suspended may mean lost), session lets it run on.
func TestExecErrorPolicyOnDisconnect(t *testing.T) {
	zk := shared
	for _, tt := range []struct {
		policy string
		want   int
	}{{"standard", exitLost}, {"session", 3}} {
		t.Run(tt.policy, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			// --revocable keeps a data watch on our node: go-zookeeper
			// re-sends it after reconnecting, which shows the reconnect.
			pr := startZklock(t, append([]string{"--session-timeout", "10s", "--error-policy", tt.policy},
				execArgs(t, proxy.Addr(), []string{"--revocable"}, lockPath(t), "wait")...)...)
			pr.expect(t, "ready", 30*time.Second)
			proxy.ResetCounts()
			proxy.DropConnections()
			if tt.policy == "session" {
				zktest.Eventually(t, 20*time.Second, "the reconnect", func() bool {
					r := proxy.Requests()
					return r[zktest.OpSetWatches]+r[zktest.OpSetWatches2] > 0
				})
				pr.cmd.Process.Signal(syscall.SIGTERM)
			}
			pr.expect(t, "got terminated", 20*time.Second)
			if code := pr.wait(t, 20*time.Second); code != tt.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.want, pr.stderr)
			}
		})
	}
}

// --namespace puts the lock under /NS (paths stay relative to it), and
// --auth authenticates the session.
func TestExecNamespaceAndAuth(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	// creator-read: the nodes are the credentials' to change, readable by anyone (this test's
	// anonymous client and holders); the default, creator, is TestZklockCredentialsMakeNodesPrivate's.
	pr := startZklock(t, append([]string{"--namespace", "zklock-ns", "--auth", "ops:secret", "--acl", "creator-read"},
		execArgs(t, zk.ConnectString(), nil, p, "wait")...)...)
	pr.expect(t, "ready", 30*time.Second)
	kids, _, err := fw.Children(ctxFor(t, 10*time.Second), "/zklock-ns"+p)
	if err != nil || len(kids) != 1 {
		t.Fatalf("under the namespace: %v (%v), want our node", kids, err)
	}
	r := holdersJSON(t, zk.ConnectString(), "/zklock-ns"+p)
	if len(r.Holders) != 1 || r.Holders[0].Origin != recipes.OriginGo {
		t.Fatalf("holders without the namespace: %+v", r)
	}
	pr.cmd.Process.Signal(syscall.SIGTERM)
	if code := pr.wait(t, 20*time.Second); code != 3 {
		t.Fatalf("exit %d; stderr:\n%s", code, pr.stderr)
	}
}
