package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// guardianArg is the hidden first argument that makes zklock a guardian (see runGuardian).
const guardianArg = "__zklock-guardian"

// guardian is a small process, zklock itself re-executed in a session of its own, that kills the
// command's process group if zklock dies first. The kernel's Pdeathsig ends only the command
// itself when zklock dies of SIGKILL; what the command started (`sh -c 'a; b'`, `sleep &`) would
// run on, beside the next holder or leader. The guardian holds the read end of a pipe whose
// write end only zklock holds: end of file means zklock is gone.
type guardian struct {
	cmd *exec.Cmd
	w   *os.File // zklock's end of the pipe
}

// startGuardian starts a guardian for process group pgid. The pipe exists before the guardian
// runs, so a zklock that dies at any point after this returns is noticed.
func startGuardian(pgid int) (*guardian, error) {
	r, w, err := os.Pipe() // close-on-exec: the command never inherits the write end
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command(selfExe(), guardianArg, strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no terminal signal, no group kill reaches it
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	return &guardian{cmd: cmd, w: w}, nil
}

// disarm tells the guardian that the process group is gone (so that it never signals a reused
// process group id). Call it only once the whole group has exited. The guardian is reaped in
// the background: nothing waits for it (a race-enabled build sleeps a second before it exits).
func (g *guardian) disarm() {
	_, _ = g.w.Write([]byte{guardianDisarm})
	g.w.Close()
	go g.cmd.Wait()
}

// guardianDisarm is the byte that tells the guardian to exit without killing.
const guardianDisarm = 'd'

// runGuardian is the guardian's main: it waits for a disarm byte or the end of its stdin (zklock
// died), and in the second case sends SIGKILL to process group args[0] until the group is gone
// (at most guardianKillFor).
func runGuardian(args []string) int {
	pgid, err := strconv.Atoi(argOrEmpty(args))
	if err != nil || pgid <= 1 {
		fmt.Fprintf(os.Stderr, "zklock guardian: bad process group %q\n", argOrEmpty(args))
		return exitUsage
	}
	var b [1]byte
	if n, _ := io.ReadFull(os.Stdin, b[:]); n == 1 && b[0] == guardianDisarm {
		return exitOK
	}
	deadline := time.Now().Add(guardianKillFor)
	for syscall.Kill(-pgid, syscall.SIGKILL) == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // a group cannot be waited for: poll until it is empty
	}
	return exitOK
}

// guardianKillFor bounds how long a guardian keeps killing a group whose members fork.
const guardianKillFor = time.Second

func argOrEmpty(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
