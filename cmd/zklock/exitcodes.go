package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/retry"
)

// zklock's own exit codes. exec otherwise exits with its command's code
// (128+N when the command died of signal N, as shells report it), so these
// sit above the codes programs usually return (sysexits.h's range).
const (
	exitOK          = 0
	exitUsage       = 64  // bad flags, arguments, paths or command, found before connecting
	exitConnect     = 69  // no ZooKeeper session within --connect-timeout, or the connection failed
	exitFailure     = 70  // any other failure of zklock itself (a ZooKeeper error)
	exitBusy        = 73  // exec --try: the lock is held by someone else
	exitTimeout     = 75  // exec --timeout: the lock was not acquired in time
	exitLost        = 76  // exec: the lock was lost (or may be) while the command ran; it was stopped
	exitRevoked     = 77  // exec --revocable: someone asked for the lock (zklock revoke); the command was stopped
	exitCannotRun   = 126 // exec: the command was found but could not be started
	exitNotFound    = 127 // exec: the command was not found
	exitInterrupted = 130 // SIGINT or SIGTERM before the command started
)

// exitError carries the exit code zklock ends with; err (may be nil) is
// printed on stderr first.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// withCode returns err carrying code.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// usageErr is a usage error: the message, then a hint to the command's help.
func usageErr(cmd, format string, args ...any) error {
	hint := "zklock help"
	if cmd != "" {
		hint += " " + cmd
	}
	return withCode(exitUsage, fmt.Errorf(format+" (see '%s')", append(args, hint)...))
}

// exitCode maps an error returned by a command to zklock's exit code.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case framework.Classify(err) == retry.Retryable, errors.Is(err, framework.ErrSessionLost):
		return exitConnect
	case errors.Is(err, recipes.ErrLocked):
		return exitBusy
	}
	return exitFailure
}
