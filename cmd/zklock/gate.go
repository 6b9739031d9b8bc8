package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// gateArg is the hidden first argument that makes zklock the gate of a command (runGate).
const gateArg = "__zklock-gate"

// The gate's two pipes, as its file descriptors (cmd.ExtraFiles).
const (
	gateGoFD     = 3 // read end: one byte gateGo, written once the guardian is armed
	gateStatusFD = 4 // write end, close-on-exec: an errno when exec failed, nothing when it worked
)

// gateGo is the byte that tells the gate to exec the command.
const gateGo = 'g'

// gate is the command's process before it is the command: zklock re-executed, in the
// command's process group, with the command's stdio and environment, waiting for zklock to
// arm the guardian. Then it execs the command in place (same pid, same group). Should zklock
// die first, the gate reads end of file and exits (and the kernel's Pdeathsig kills it), so
// the command never runs unwatched (issue 24.7: it did, for about a millisecond).
type gate struct {
	cmd    *exec.Cmd
	goW    *os.File // zklock's end of the go pipe
	status *os.File // zklock's end of the status pipe
}

// startGate starts the gate of argv (path is argv[0] looked up).
func startGate(path string, argv, env []string, passStdin bool) (*gate, error) {
	goR, goW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer goR.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		goW.Close()
		return nil, err
	}
	defer statusW.Close()
	cmd := exec.Command(selfExe(), append([]string{gateArg, path}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if passStdin {
		cmd.Stdin = os.Stdin
	}
	cmd.ExtraFiles = []*os.File{goR, statusW}
	cmd.SysProcAttr = childSysProcAttr()
	if err := cmd.Start(); err != nil {
		goW.Close()
		statusR.Close()
		return nil, err
	}
	return &gate{cmd: cmd, goW: goW, status: statusR}, nil
}

// open lets the gate exec the command and returns once it did (nil) or failed (the errno).
// A failed gate has exited and was reaped.
func (g *gate) open() error {
	defer g.status.Close()
	_, werr := g.goW.Write([]byte{gateGo})
	g.goW.Close()
	msg, _ := io.ReadAll(g.status) // end of file: the exec closed the status pipe
	if werr == nil && len(msg) == 0 {
		return nil
	}
	_ = g.cmd.Wait()
	if n, err := strconv.Atoi(string(msg)); err == nil {
		return syscall.Errno(n)
	}
	if werr != nil {
		return werr
	}
	return errors.New(string(msg))
}

// abort ends the gate without running the command, and reaps it.
func (g *gate) abort() {
	g.goW.Close()
	g.status.Close()
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	_ = g.cmd.Wait()
}

// runGate is the gate's main: args are the command's path and its argv. It waits for the go
// byte, then execs the command; on end of file (zklock died or gave up) it exits without
// running it. An exec that fails writes its errno on the status pipe.
func runGate(args []string) int {
	syscall.CloseOnExec(gateGoFD)
	syscall.CloseOnExec(gateStatusFD)
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "zklock gate: no command")
		return exitUsage
	}
	var b [1]byte
	if n, _ := os.NewFile(gateGoFD, "go").Read(b[:]); n != 1 || b[0] != gateGo {
		return exitCannotRun
	}
	err := syscall.Exec(args[0], args[1:], os.Environ())
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	_, _ = os.NewFile(gateStatusFD, "status").Write([]byte(strconv.Itoa(int(errno))))
	return exitCannotRun
}
