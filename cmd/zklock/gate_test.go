package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// The command does not run before its guardian is armed (issue 24.7): zklock, stopped right
// before it starts the guardian, has a child that is still zklock's gate, not the command;
// SIGKILLed there, it leaves nothing behind and the command never ran. On the old code the
// command (and the grandchild it starts) ran in that window and outlived zklock.
func TestCommandWaitsForItsGuardian(t *testing.T) {
	for _, cmd := range []string{"exec", "elect"} {
		t.Run(cmd, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "grandchild")
			script := fmt.Sprintf(`sleep 300 & echo $! > %s.tmp; mv %s.tmp %s; echo started; wait`, pidFile, pidFile, pidFile)
			t.Setenv(testHookEnv, "before-guardian")
			p := startZklock(t, "--servers", shared.ConnectString(), cmd, lockPath(t), "--", "sh", "-c", script)
			zlk := p.cmd.Process.Pid
			zktest.Eventually(t, 30*time.Second, "zklock to stop at the hook", func() bool { return procState(zlk) == "T" })
			kids := childrenOf(zlk)
			if len(kids) != 1 {
				t.Fatalf("zklock has children %v at the hook, want one (the command's process)", kids)
			}
			t.Cleanup(func() { _ = syscall.Kill(-kids[0], syscall.SIGKILL) }) // its group, should the test fail
			if line := cmdline(kids[0]); !strings.Contains(line, gateArg) {
				t.Fatalf("the command runs before its guardian is armed: pid %d is %q", kids[0], line)
			}
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			zktest.Eventually(t, killBound, "the command's process to die with zklock", func() bool { return gone(kids[0]) })
			if _, err := os.Stat(pidFile); err == nil {
				data, _ := os.ReadFile(pidFile)
				if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 {
					killIfRunning(pid)
				}
				t.Fatal("the command ran although zklock died before arming its guardian")
			}
		})
	}
}

// procState is the state letter of process pid (R, S, T, Z, ...), "" when it is gone.
func procState(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	state, _, _ := strings.Cut(rest, " ")
	return state
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var kids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(stat), ") ")
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			kid, _ := strconv.Atoi(filepath.Base(d))
			kids = append(kids, kid)
		}
	}
	return kids
}

// cmdline is process pid's command line, its arguments joined by spaces.
func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
}
