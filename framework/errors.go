package framework

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
)

// Framework errors. All are errors.Is-able; operation errors wrap them with the path.
var (
	ErrClosed        = errors.New("framework: closed")
	ErrInvalidPath   = errors.New("framework: invalid path")
	ErrDataTooLarge  = errors.New("framework: data too large")
	ErrNilContext    = errors.New("framework: nil context")
	ErrSuspended     = errors.New("framework: connection suspended")
	ErrSessionLost   = errors.New("framework: session lost")
	ErrInvalidOption = errors.New("framework: invalid option")
	// ErrUnimplemented: the server refused a feature it has not enabled (TTL nodes need
	// extendedTypesEnabled=true).
	ErrUnimplemented = errors.New("framework: unimplemented by the server")
	// ErrMultiAborted marks the Multi ops that were not applied because another op of the same
	// transaction failed (ZooKeeper's runtime-inconsistency filler, code -2).
	ErrMultiAborted = errors.New("framework: multi aborted by another op")
	// ErrOperationTimeout is ZooKeeper's OPERATIONTIMEOUT (-7); retryable.
	ErrOperationTimeout = errors.New("framework: operation timeout")
)

// go-zookeeper's sentinels, re-exported so recipes need not import go-zookeeper.
var (
	ErrNoNode         = zk.ErrNoNode
	ErrNodeExists     = zk.ErrNodeExists
	ErrBadVersion     = zk.ErrBadVersion
	ErrNotEmpty       = zk.ErrNotEmpty
	ErrSessionExpired = zk.ErrSessionExpired
	ErrNoAuth         = zk.ErrNoAuth
	// ErrNoServer: no server could be reached (go-zookeeper's zk.ErrNoServer); operation errors
	// wrap it with the addresses tried and their last connect error. Retryable.
	ErrNoServer = zk.ErrNoServer
)

// Stat, Event and ACL are go-zookeeper's types.
type (
	Stat  = zk.Stat
	Event = zk.Event
	ACL   = zk.ACL
)

// Classify is the one retry classification: Retryable for connection loss in flight
// (zk.ErrConnectionClosed), no server, operation timeout, session moved, raw network errors and
// io.EOF; SessionExpired for zk.ErrSessionExpired; Permanent for everything else, including context
// errors and ErrClosed. The Framework additionally treats every error as Permanent once closed.
func Classify(err error) retry.Class {
	switch {
	case err == nil:
		return retry.Permanent
	case errors.Is(err, ErrClosed), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return retry.Permanent
	case errors.Is(err, zk.ErrSessionExpired):
		return retry.SessionExpired
	case errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrSessionMoved), errors.Is(err, ErrOperationTimeout),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return retry.Retryable
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return retry.Retryable
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return retry.Retryable
	}
	return retry.Permanent
}

// mapZKError turns go-zookeeper's "unknown error: -N" strings into sentinels.
func mapZKError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "unknown error: ") {
		return err
	}
	switch strings.TrimPrefix(msg, "unknown error: ") {
	case "-2":
		return ErrMultiAborted
	case "-6":
		return ErrUnimplemented
	case "-7":
		return ErrOperationTimeout
	}
	return err
}
