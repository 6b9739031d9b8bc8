package main

import (
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// triedServers is what a failed framework.WaitConnected says about the servers: "tried ADDR
// (why), ...", without the framework's prefix and the wrapped sentinels, for zklock's one-line
// message; any other error as it is.
func triedServers(err error) string {
	msg := err.Error()
	if !errors.Is(err, framework.ErrNoServer) {
		return msg
	}
	_, tried, ok := strings.Cut(msg, "tried ")
	if !ok {
		return msg
	}
	if i := strings.LastIndex(tried, ": "+framework.ErrNoServer.Error()); i >= 0 {
		tried = tried[:i]
	}
	return "tried " + tried
}

// stderrLog is stderr that remembers what was written on it, so that an error a command
// already printed (supervise reports a lost lock as it stops the command) is not printed
// again as zklock exits. Safe for concurrent use.
type stderrLog struct {
	w       io.Writer
	mu      sync.Mutex
	written strings.Builder
}

func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.written.Write(p)
	l.mu.Unlock()
	return l.w.Write(p)
}

// once returns err, or err's exit code alone when its message was printed already.
func (l *stderrLog) once(err error) error {
	var ee *exitError
	if err == nil || (errors.As(err, &ee) && ee.err == nil) {
		return err
	}
	l.mu.Lock()
	printed := strings.Contains(l.written.String(), err.Error())
	l.mu.Unlock()
	if printed {
		return withCode(exitCode(err), nil)
	}
	return err
}

// logStderr returns std with stderr replaced by a stderrLog, and that log.
func logStderr(std stdio) (stdio, *stderrLog) {
	l := &stderrLog{w: std.err}
	std.err = l
	return std, l
}
