package leader

import "errors"

// Sentinel errors of the election recipes; match them with errors.Is.
var (
	// ErrNotStarted is returned by calls that need a started recipe (Await, Close, Requeue).
	ErrNotStarted = errors.New("leader: not started")
	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("leader: already started")
	// ErrClosed is returned once the recipe was closed, and is the cause of a term ended by Close.
	ErrClosed = errors.New("leader: closed")
	// ErrInvalidArgument reports a bad parameter or option; the message names it.
	ErrInvalidArgument = errors.New("leader: invalid argument")
	// ErrStopped is returned by Await when the election stopped by itself because its framework
	// was closed; it wraps the error that stopped it.
	ErrStopped = errors.New("leader: election stopped")
)

// Causes of a selector's term that ended by its own side.
var (
	// ErrInterrupted is the cause of a term ended by LeaderSelector.InterruptLeadership.
	ErrInterrupted = errors.New("leader: leadership interrupted")
	// ErrTakeoverReturned is the cause of a term whose takeover function returned.
	ErrTakeoverReturned = errors.New("leader: takeover returned")
)
