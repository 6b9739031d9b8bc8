package recipes

import "errors"

// Sentinel errors returned by the recipes. All are matched with errors.Is; the
// errors returned wrap them with the lock path and, where it helps, the cause.
var (
	// ErrLocked is returned by TryAcquire when the lock is busy.
	ErrLocked = errors.New("recipes: lock is held by another contender")
	// ErrNotHeld is returned when a lease is released more times than it was
	// acquired, or released after it was lost.
	ErrNotHeld = errors.New("recipes: lease is not held")
	// ErrLockLost is the cause a lease reports once its session was suspended
	// or lost (per the framework's error policy): another contender may hold
	// the lock now.
	ErrLockLost = errors.New("recipes: lock may be lost")
	// ErrReleased is the cause a lease reports after its last release.
	ErrReleased = errors.New("recipes: lease released")
	// ErrUpgrade is returned when the owner of a read lock asks for the write
	// lock of the same InterProcessReadWriteLock: Curator would deadlock.
	ErrUpgrade = errors.New("recipes: read lock cannot be upgraded to a write lock")
	// ErrForeignLease is returned when a lease is used with a lock it does not
	// belong to.
	ErrForeignLease = errors.New("recipes: lease belongs to another lock")
	// ErrInvalidArgument reports a bad parameter (a count, a maximum, a set of
	// paths); the message names it.
	ErrInvalidArgument = errors.New("recipes: invalid argument")
)
