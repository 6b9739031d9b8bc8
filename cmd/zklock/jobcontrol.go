package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// jobSignals are the job-control signals supervise handles itself.
var jobSignals = []os.Signal{syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGCHLD}

// jobControl keeps the command's process group in step with zklock's own stops. The command
// leads a group of its own, which the terminal's Ctrl-Z does not reach: without this, a
// stopped zklock (whose session may expire) would leave its command running beside the next
// holder (issue 24.6). SIGSTOP of zklock cannot be caught: it stops zklock alone.
type jobControl struct {
	c        *child
	lease    tenure
	what     string // "lock" or "leadership"
	argv     []string
	w        stdio
	paused   bool // we stopped the group and then ourselves (SIGTSTP)
	reported bool // the command's own stop was reported on stderr
}

// handle acts on one job-control signal. It returns an error carrying exitLost when zklock
// was continued after its tenure ended: the group, stopped, was killed.
func (j *jobControl) handle(s os.Signal) error {
	switch s {
	case syscall.SIGTSTP: // the group first: it must not run while we cannot watch the lease
		j.c.signal(syscall.SIGSTOP)
		j.paused = true
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	case syscall.SIGCONT:
		if !j.paused {
			return nil
		}
		j.paused = false
		if err := j.lease.Err(); err != nil {
			fmt.Fprintf(j.w.err, "zklock: %s lost while zklock was stopped; sending SIGKILL to %s\n", j.what, j.cmdline())
			j.c.signal(syscall.SIGKILL)
			return withCode(exitLost, fmt.Errorf("%s lost while zklock was stopped: %w", j.what, err))
		}
		j.c.signal(syscall.SIGCONT)
	case syscall.SIGCHLD:
		sig := stopSignal(j.c.cmd.Process.Pid)
		if sig != 0 && !j.paused && !j.reported {
			fmt.Fprintf(j.w.err, "zklock: %s is stopped by %s and still holds the %s: it may be waiting for "+
				"the terminal (it is not the foreground job; give it input with --pass-stdin or from a file); "+
				"continue it with kill -CONT -%d\n", j.cmdline(), signalName(sig), j.what, j.c.cmd.Process.Pid)
		}
		j.reported = sig != 0
	}
	return nil
}

func (j *jobControl) cmdline() string { return strings.Join(j.argv, " ") }

// signalName is "SIGTTIN" for syscall.SIGTTIN, and so on.
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTTIN:
		return "SIGTTIN"
	case syscall.SIGTTOU:
		return "SIGTTOU"
	case syscall.SIGTSTP:
		return "SIGTSTP"
	case syscall.SIGSTOP:
		return "SIGSTOP"
	}
	return s.String()
}
