package main

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Ctrl-Z (SIGTSTP) of zklock exec stops the command's group too, then zklock; SIGCONT
// continues both while the lock is held, and kills the group when the lock was lost meanwhile
// (issue 24.6: the command ran on while zklock was stopped, beside the next holder).
func TestTSTPStopsTheCommand(t *testing.T) {
	for _, lost := range []bool{false, true} {
		t.Run("lost="+strconv.FormatBool(lost), func(t *testing.T) {
			path := lockPath(t)
			p := startZklock(t, append([]string{"--servers", shared.ConnectString(), "--session-timeout", "2s", "exec", path, "--"},
				childArgs(t, "wait")...)...)
			pid, _ := strconv.Atoi(strings.TrimPrefix(p.expect(t, "ready", 30*time.Second), "ready "))
			t.Cleanup(func() { killIfRunning(pid) })
			if err := p.cmd.Process.Signal(syscall.SIGTSTP); err != nil {
				t.Fatal(err)
			}
			zktest.Eventually(t, 10*time.Second, "the command to stop", func() bool { return procState(pid) == "T" })
			zktest.Eventually(t, 10*time.Second, "zklock to stop", func() bool { return procState(p.cmd.Process.Pid) == "T" })
			if lost { // another client gets the lock once zklock's session expired
				fw := zktest.Connect(t, shared)
				m, _ := recipes.NewMutex(fw, path)
				l, err := m.Acquire(ctxFor(t, 60*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Release(context.Background())
			}
			if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			if lost {
				if code := p.wait(t, 20*time.Second); code != exitLost {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, exitLost, p.stderr)
				}
				zktest.Eventually(t, 5*time.Second, "the command to be killed", func() bool { return gone(pid) })
				return
			}
			zktest.Eventually(t, 10*time.Second, "the command to continue", func() bool { return procState(pid) != "T" })
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			p.expect(t, "got terminated", 10*time.Second)
			if code := p.wait(t, 20*time.Second); code != 3 {
				t.Errorf("exit %d, want the command's 3; stderr:\n%s", code, p.stderr)
			}
		})
	}
}

// The command gets no stdin unless --pass-stdin (issue 26.2: a command reading the terminal
// hung, stopped, while it held the lock). zklock's stdin here is a pipe kept open: a command
// that read it would wait for ever.
func TestCommandStdin(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
		input string
		want  string
	}{
		{"default: none", nil, "", "read 0 bytes"},
		{"--pass-stdin", []string{"--pass-stdin"}, "hello", "read 5 bytes"},
	} {
		for _, cmd := range []string{"exec", "elect"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				args := append(append([]string{"--servers", shared.ConnectString(), cmd}, tt.flags...), lockPath(t), "--")
				p := startZklockStdin(t, append(args, childArgs(t, "readstdin")...)...)
				if tt.input != "" {
					p.stdin.Write([]byte(tt.input))
					p.stdin.Close()
				}
				p.expect(t, tt.want, 20*time.Second)
				if code := p.wait(t, 20*time.Second); code != 0 {
					t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
				}
			})
		}
	}
}

// A command stopped by a terminal signal (here SIGTTIN it sends itself) holds the lock while
// it is stopped: zklock says so on stderr (issue 26.2: nothing was said).
func TestStoppedCommandReported(t *testing.T) {
	p := startZklock(t, append([]string{"--servers", shared.ConnectString(), "exec", lockPath(t), "--"}, childArgs(t, "stopself")...)...)
	pid, _ := strconv.Atoi(strings.TrimPrefix(p.expect(t, "ready", 30*time.Second), "ready "))
	t.Cleanup(func() { killIfRunning(pid) })
	zktest.Eventually(t, 10*time.Second, "zklock to report the stop", func() bool {
		return strings.Contains(p.stderr.String(), "stopped by SIGTTIN")
	})
	_ = syscall.Kill(pid, syscall.SIGKILL)
	p.wait(t, 20*time.Second)
}
