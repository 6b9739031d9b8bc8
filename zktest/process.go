package zktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is one running JVM, in its own process group.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the JVM has exited and been reaped
}

// startProcess runs argv with stdout and stderr appended to logPath.
func startProcess(argv []string, dir, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("zktest: open server log: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Env = append(os.Environ(), "JAVA_TOOL_OPTIONS=")
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("zktest: start %s: %w", argv[0], err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit status of a server we stop or kill is not interesting
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process group.
func (p *process) signal(sig syscall.Signal) error {
	if p.exited() {
		return nil
	}
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// stop sends SIGTERM (and SIGCONT, in case it is paused), waits up to grace,
// then SIGKILLs and waits for the exit.
func (p *process) stop(grace time.Duration) error {
	if grace > 0 {
		if err := p.signal(syscall.SIGTERM); err != nil {
			return fmt.Errorf("zktest: stop: %w", err)
		}
		_ = p.signal(syscall.SIGCONT)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
			return nil
		case <-t.C:
		}
	}
	return p.kill()
}

// kill SIGKILLs the process group and waits (bounded) until it is reaped.
func (p *process) kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("zktest: kill: %w", err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("zktest: pid %d did not exit after SIGKILL", p.cmd.Process.Pid)
	}
}
