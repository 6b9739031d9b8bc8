package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM of zklock reaches a command that ignores it; --kill-grace later the command's group
// gets SIGKILL, and a second signal sends it at once (issue 26.1: the command kept the lock
// for as long as it liked, and a second SIGTERM did nothing).
func TestSignalEscalatesToSIGKILL(t *testing.T) {
	for _, tt := range []struct {
		name    string
		grace   string
		signals int
	}{
		{"after the kill grace", "1s", 1},
		{"second signal at once", "60s", 2},
	} {
		for _, cmd := range []string{"exec", "elect"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				p := startZklock(t, append([]string{"--servers", shared.ConnectString(), cmd, "--kill-grace", tt.grace, lockPath(t), "--"},
					childArgs(t, "stubborn")...)...)
				pid, _ := strconv.Atoi(strings.TrimPrefix(p.expect(t, "ready", 30*time.Second), "ready "))
				t.Cleanup(func() { killIfRunning(pid) })
				for i := range tt.signals {
					if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
						t.Fatal(err)
					}
					if i < tt.signals-1 { // one at a time: the kernel merges a pending one
						p.expect(t, "got terminated", 10*time.Second)
					}
				}
				code := p.wait(t, 20*time.Second)
				if code != 128+int(syscall.SIGKILL) {
					t.Errorf("exit %d, want %d (the command died of SIGKILL); stderr:\n%s", code, 128+int(syscall.SIGKILL), p.stderr)
				}
				if !gone(pid) {
					t.Error("the command still runs")
				}
			})
		}
	}
}

// A --kill-grace past a third of the session timeout is warned of on stderr without --verbose
// (issue 26.4: only --verbose showed it).
func TestLongKillGraceWarnedAlways(t *testing.T) {
	for _, cmd := range []string{"exec", "elect"} {
		t.Run(cmd, func(t *testing.T) {
			_, errOut, code := runZklock(t, append([]string{"--servers", shared.ConnectString(), cmd, "--kill-grace", "60s", lockPath(t), "--"},
				childArgs(t, "exit", "0")...)...)
			if code != 0 || !strings.Contains(errOut, "--kill-grace 1m0s exceeds a third") {
				t.Fatalf("exit %d, stderr lacks the warning:\n%s", code, errOut)
			}
		})
	}
}
