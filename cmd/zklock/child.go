package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// child is the command exec runs, leading its own process group so that a
// signal reaches it and everything it started, and nothing else. A guardian
// kills that group if zklock dies without stopping it (guardian.go).
type child struct {
	cmd   *exec.Cmd
	guard *guardian
	done  chan struct{} // closed once the command exited and was reaped
	err   error         // cmd.Wait's error, valid after done
}

// startChild starts argv with env added to ours, sharing our stdio (stdin only when
// passStdin). The process is first zklock's gate (gate.go): it runs the command only once the
// guardian watches its group, so that a zklock killed at any point never leaves the command,
// or what it started, running unwatched.
func startChild(argv, env []string, passStdin bool) (*child, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, withCode(exitNotFound, fmt.Errorf("command not found: %s", argv[0]))
		}
		return nil, withCode(exitCannotRun, fmt.Errorf("cannot run %s: %w", argv[0], err))
	}
	gate, err := startGate(path, argv, env, passStdin)
	if err != nil {
		return nil, withCode(exitCannotRun, fmt.Errorf("cannot run %s: %w", argv[0], err))
	}
	cmd := gate.cmd
	testHook("before-guardian")
	g, err := startGuardian(cmd.Process.Pid)
	if err != nil { // without it, a SIGKILL of zklock would leave the command's children running
		gate.abort()
		return nil, withCode(exitCannotRun, fmt.Errorf("cannot start the guardian of %s: %w", argv[0], err))
	}
	if err := gate.open(); err != nil {
		g.disarm()
		return nil, execErr(argv[0], err)
	}
	c := &child{cmd: cmd, guard: g, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// execErr gives a command that its gate could not exec its exit code.
func execErr(name string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return withCode(exitNotFound, fmt.Errorf("command not found: %s: %w", name, err))
	}
	return withCode(exitCannotRun, fmt.Errorf("cannot run %s: %w", name, err))
}

// signal sends sig to the child's process group (its pgid is its pid).
func (c *child) signal(sig syscall.Signal) {
	if err := syscall.Kill(-c.cmd.Process.Pid, sig); err != nil {
		_ = c.cmd.Process.Signal(sig) // the group is gone; the leader may not be reaped yet
	}
}

// exitCode is the command's exit code as a shell reports it: its status, or
// 128+N when signal N ended it.
func (c *child) exitCode() int {
	st := c.cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// stopLeftovers ends what is left of the process group once its leader
// exited (a command's background jobs must not outlive the lock): SIGTERM,
// then SIGKILL at deadline. It polls, as a process group cannot be waited
// on from outside. Then the group is gone (or killed): the guardian is disarmed.
func (c *child) stopLeftovers(deadline time.Time) {
	defer c.guard.disarm()
	pgid := c.cmd.Process.Pid
	if syscall.Kill(-pgid, 0) != nil {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	for time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}
