package recipes

import (
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
)

// Sentinel errors returned by the recipes. All are matched with errors.Is; the
// errors returned wrap them with the lock path and, where it helps, the cause.
var (
	// ErrLocked is returned by TryAcquire when the lock is busy; the message says whether a
	// lease of this process, taken through the same Lock, is what holds it (then re-enter that
	// lease with Lease.Reenter instead).
	ErrLocked = errors.New("recipes: lock is held")
	// ErrSelfLocked matches the *LockedError of a TryAcquire whose lock is held by a lease of
	// this process that the acquire would wait behind: one taken through the same Lock (re-enter
	// it with Lease.Reenter), the write lease of the same read-write lock for a read (take the
	// read with ReadLock().Downgrade), or one of its read leases for a write (there is no
	// upgrade: release the read first). LockedError.Held names that lease's node. It also
	// matches ErrLocked.
	ErrSelfLocked = fmt.Errorf("%w by a lease of this process", ErrLocked)
	// ErrNotHeld is returned when a lease is released (or re-entered) after its
	// last release. Releasing a lease that was lost is not an error: its node is
	// deleted anyway.
	ErrNotHeld = errors.New("recipes: lease is not held")
	// ErrLockLost is the cause a lease reports once its session was suspended
	// or lost (per the framework's error policy): another contender may hold
	// the lock now.
	ErrLockLost = errors.New("recipes: lock may be lost")
	// ErrNodeDeleted is the reason of a lease lost because its node was deleted by someone else
	// (an operator, another client, Revoke's caller gone rogue) while it was held: the next
	// contender may hold the lock already. Its Err wraps both ErrLockLost and ErrNodeDeleted;
	// Release returns nil at once, as for every lost lease.
	ErrNodeDeleted = errors.New("recipes: the lock node was deleted")
	// ErrReleased is the cause a lease reports after its last release.
	ErrReleased = errors.New("recipes: lease released")
	// ErrForeignLease is returned when a lease is given to a lock it does not
	// belong to (ReadLock.Downgrade with another lock's lease).
	ErrForeignLease = errors.New("recipes: lease belongs to another lock")
	// ErrMixedRecipes is returned by an acquire that finds, in its lock directory, a contender
	// of another recipe (a LeaderLatch's "latch-" node beside a mutex's "lock-" nodes, say)
	// that it would overtake: each would find itself first, so both would lead or hold. The
	// message names the other recipe and its node. It also matches driver.ErrKeyOrder.
	ErrMixedRecipes = errors.New("recipes: the lock path holds contenders of another recipe")
	// ErrNotTransactional is returned by NewTxMultiLock for a lock that cannot be queued in its
	// transaction: one that takes more than one node per acquire (a semaphore), or whose driver
	// creates a fixed node (a downgrade's), decides from an input node, or waits for a directory.
	ErrNotTransactional = errors.New("recipes: lock cannot join a transactional multi-lock")
	// ErrInvalidArgument reports a bad parameter (a count, a maximum, a set of
	// paths); the message names it.
	ErrInvalidArgument = errors.New("recipes: invalid argument")
	// ErrNotContender is returned by Revoke for a path that is not a contender node of a lock
	// (a lock's directory, a node of another kind): nothing was written. The message names the
	// path and why. It also matches ErrInvalidArgument.
	ErrNotContender = fmt.Errorf("%w: not a contender node of a lock", ErrInvalidArgument)
	// ErrForeignNode is returned by an acquire (Acquire and TryAcquire alike, at once) that finds
	// a node no contender made in its way: one that is not ephemeral (a squatter: it would
	// block the lock, or take a semaphore's slot, for ever), or whose name no lock knows. The
	// error is a *ForeignNodeError naming it; nothing of ours is left behind. It is
	// driver.ErrForeignNode. Remove the node (zkCli.sh delete PATH) once you know who made it:
	// see docs/security.md.
	ErrForeignNode = driver.ErrForeignNode
)

// ForeignNodeError is the error of an acquire that met a foreign node (errors.Is(err,
// ErrForeignNode) holds): Path is the node, Reason says why it is no contender.
type ForeignNodeError struct {
	Path   string // the foreign node's path, namespace-relative
	Reason string
}

func (e *ForeignNodeError) Error() string {
	return ErrForeignNode.Error() + ": " + e.Path + ": " + e.Reason
}

// Unwrap returns ErrForeignNode.
func (e *ForeignNodeError) Unwrap() error { return ErrForeignNode }

// releasedError is the cause of a released lease, "ErrReleased: <path>", formatted only when
// read: every release sets it and almost nobody reads it.
type releasedError string

func (e releasedError) Error() string { return ErrReleased.Error() + ": " + string(e) }
func (e releasedError) Unwrap() error { return ErrReleased }

// LockedError is the ErrLocked of a TryAcquire that found a lock busy (errors.Is(err,
// ErrLocked) holds): errors.As gives the busy lock's path, for a multi-lock the first busy lock
// of its set, so that a caller can name it without parsing the message.
type LockedError struct {
	Path   string // the busy lock's path
	Reason string // what holds it, in words
	// Held is the node name of the lease of this process that holds the lock and that the
	// acquire would wait behind (see ErrSelfLocked), or "" when another contender holds it.
	Held string
	node string // the node ahead, when another contender's one node is what holds it
}

func (e *LockedError) Error() string { return ErrLocked.Error() + ": " + e.Path + ": " + e.Reason }
func (e *LockedError) Unwrap() error { return ErrLocked }

// Is matches ErrSelfLocked when a lease of this process holds the lock (Held is set).
func (e *LockedError) Is(target error) bool { return target == ErrSelfLocked && e.Held != "" }
