package driver

import "errors"

// ErrOwnNodeMissing is returned (wrapped, with the node name) by Evaluate when our own node
// is not among the children: the session expired or someone deleted it. Curator reports
// it as NoNode and re-creates the node; so should the caller.
var ErrOwnNodeMissing = errors.New("driver: own node missing")

// ErrNilDriver is returned by Evaluate for a nil Driver.
var ErrNilDriver = errors.New("driver: nil driver")

// Lock names used by Curator 5.x in contender node names.
const (
	MutexLockName = "lock-"    // InterProcessMutex and the semaphore's internal mutex
	WriteLockName = "__WRIT__" // InterProcessReadWriteLock write lock
	ReadLockName  = "__READ__" // InterProcessReadWriteLock read lock
	LeaseLockName = "lease-"   // InterProcessSemaphoreV2 leases
)

// Driver decides, from a sorted listing, whether we hold and what we wait for.
// Implementations must be safe for concurrent use.
type Driver interface {
	// LockName is the name part of our contender nodes: "lock-", "__WRIT__", "__READ__",
	// "lease-".
	LockName() string
	// SortKey is the key a child sorts by: by default the part after the last occurrence
	// of LockName, or the whole name if it does not occur.
	SortKey(child string) string
	// Decide applies the driver's predicate to children sorted by Sort, where
	// sorted[ourIndex] is our own node. It does not allocate. An ourIndex out of range
	// gives the zero Decision (Evaluate never passes one).
	Decide(sorted []string, ourIndex int) Decision
}

// Decision is a driver's verdict. When Holds is false, exactly one of WatchNode and
// WatchDir says what to wait for before evaluating again.
type Decision struct {
	Holds     bool
	WatchNode string // the single child to getData-watch (when !Holds), or ""
	WatchDir  bool   // semaphore: watch the directory's children instead
}
