package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// The scenarios zklock exec and zklock elect share: both hold something (a lock, a term) on a
// path while they run a command, pass it the same environment, exit with its code, and stop it
// when the session ends. Each scenario takes the subcommand ("exec" or "elect").

// lockArgs builds "--servers S SUB FLAGS PATH -- child MODE...": zklock exec or elect running
// this test binary as its command.
func lockArgs(t *testing.T, sub, servers string, flags []string, path string, mode ...string) []string {
	return lockSetArgs(t, sub, servers, flags, []string{path}, mode...)
}

// lockSetArgs builds "--servers S SUB FLAGS P1 P2 ... -- child MODE...": lockArgs for a set of
// paths.
func lockSetArgs(t *testing.T, sub, servers string, flags, paths []string, mode ...string) []string {
	args := append([]string{"--servers", servers, sub}, flags...)
	args = append(append(args, paths...), "--")
	return append(args, childArgs(t, mode...)...)
}

// execArgs builds "--servers S exec FLAGS PATH -- child MODE...".
func execArgs(t *testing.T, servers string, flags []string, path string, mode ...string) []string {
	return lockArgs(t, "exec", servers, flags, path, mode...)
}

// electArgs builds "--servers S elect FLAGS PATH -- child MODE...".
func electArgs(t *testing.T, servers string, flags []string, path string, mode ...string) []string {
	return lockArgs(t, "elect", servers, flags, path, mode...)
}

// checkEnv runs zklock SUB FLAGS p with a child that prints its environment, checks that it
// exits 0 and that the command saw p, its node under p and a positive token, and returns the
// environment for the subcommand's own checks.
func checkEnv(t *testing.T, sub string, flags []string, p string) map[string]string {
	t.Helper()
	out, errOut, code := runZklock(t, lockArgs(t, sub, shared.ConnectString(), flags, p, "env")...)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(l, "=")
		env[k] = v
	}
	tok, err := strconv.ParseInt(env["ZKLOCK_TOKEN"], 10, 64)
	if env["ZKLOCK_PATH"] != p || !strings.HasPrefix(env["ZKLOCK_NODE"], p+"/_c_") || err != nil || tok <= 0 {
		t.Fatalf("child environment %v", env)
	}
	return env
}

// exitCase is one zklock run and the exit code it must end with.
type exitCase struct {
	name string
	args []string
	want int
}

// checkExits runs each case to completion as a subtest and checks its exit code.
func checkExits(t *testing.T, cases []exitCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runZklock(t, tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.want, errOut)
			}
		})
	}
}

// checkOneAtATime starts n zklock SUB processes on one path, each named by nameFlag ("--name",
// "--id") and running a child that records its interval, waits for them all to exit 0 and
// checks that no two commands ran at once.
func checkOneAtATime(t *testing.T, sub, nameFlag string, n int, hold string) {
	t.Helper()
	p := lockPath(t)
	file := filepath.Join(t.TempDir(), "intervals")
	procs := make([]*proc, n)
	for i := range procs {
		procs[i] = startZklock(t, lockArgs(t, sub, shared.ConnectString(), []string{nameFlag, fmt.Sprint("c", i)}, p, "interval", file, hold)...)
	}
	for _, pr := range procs {
		if code := pr.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, pr.stderr)
		}
	}
	checkNoOverlap(t, file, n)
}

// lostCase is one expiry of a holder's session: the child's mode, zklock's --error-policy and
// the line the child prints when stopped ("" when it ignores SIGTERM and is killed).
type lostCase struct{ mode, policy, want string }

// lostCases are the expiries both subcommands are checked with.
var lostCases = []lostCase{
	{"wait", "standard", "got terminated"},
	{"ignore", "standard", ""},
	{"wait", "session", "got terminated"},
}

// checkLostStopsCommand runs, for each lostCase, zklock SUB FLAGS (--kill-grace 1s added) on a
// fresh path through a proxy with --verbose and a 4 s session; once the command is ready it
// calls then (if not nil) with the path, expires the session for real and checks that zklock
// reported the session and lost (a stderr line with lostMsg), stopped its command (SIGTERM,
// then SIGKILL after the grace) and exited exitLost. after (if not nil) runs last.
func checkLostStopsCommand(t *testing.T, sub string, flags []string, lostMsg string, then func(t *testing.T, p string) (after func())) {
	t.Helper()
	zk := shared
	for _, tt := range lostCases {
		t.Run(tt.mode+"-"+tt.policy, func(t *testing.T) {
			p := lockPath(t)
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			pr := startZklock(t, append([]string{"--verbose", "--session-timeout", "4s", "--error-policy", tt.policy},
				lockArgs(t, sub, proxy.Addr(), append(slices.Clone(flags), "--kill-grace", "1s"), p, tt.mode)...)...)
			ready := pr.expect(t, "ready", 30*time.Second)
			pid, _ := strconv.Atoi(strings.TrimPrefix(ready, "ready "))
			var after func()
			if then != nil {
				after = then(t, p)
			}
			id, passwd := proxy.Session()
			if want := fmt.Sprintf("session 0x%x established", id); !strings.Contains(pr.stderr.String(), want) {
				t.Fatalf("--verbose did not report %q:\n%s", want, pr.stderr)
			}
			expireSession(t, zk, id, passwd)
			if tt.want != "" {
				pr.expect(t, tt.want, 20*time.Second)
			}
			if code := pr.wait(t, 30*time.Second); code != exitLost {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, pr.stderr)
			}
			if !strings.Contains(pr.stderr.String(), lostMsg) || !gone(pid) {
				t.Fatalf("command %d still running or loss not reported; stderr:\n%s", pid, pr.stderr)
			}
			if after != nil {
				after()
			}
		})
	}
}
