package driver

import "errors"

// Sentinel errors of the engine and the built-in drivers; match them with errors.Is.
var (
	// ErrOwnNodeMissing is returned (wrapped, with the node name) by Evaluate when our own node
	// is not among the children: the session expired or someone deleted it. Curator reports it
	// as NoNode and re-creates the node; so does the acquire loop.
	ErrOwnNodeMissing = errors.New("driver: own node missing")
	// ErrNilDriver is returned by Evaluate for a nil Driver.
	ErrNilDriver = errors.New("driver: nil driver")
	// ErrWriterMissing is a downgrading read's failure: the write node it downgrades from is not
	// in the listing that decides, so its write lock may already belong to someone else.
	ErrWriterMissing = errors.New("driver: the write lock being downgraded is no longer held")
	// ErrCountTooLow is a shared semaphore's failure: its maximum is below the number of leases
	// the acquirer needs at once, so waiting could never succeed at that maximum.
	ErrCountTooLow = errors.New("driver: shared maximum below the leases asked for")
	// ErrBadCount reports input data that is not a count in Curator's SharedCount encoding.
	ErrBadCount = errors.New("driver: malformed shared count")
	// ErrKeyOrder is returned (wrapped, naming both nodes) by CheckGrant when a driver's sort
	// key puts our node ahead of a contender created before it. Contenders whose keys differ (a
	// lock name per instance, two recipes on one path) each find themselves first, so such a
	// grant would not be exclusive; the loop refuses it.
	ErrKeyOrder = errors.New("driver: the sort key disagrees with the order the contenders were created in")
)

// Lock names used by Curator 5.x in contender node names.
const (
	MutexLockName = "lock-"    // InterProcessMutex and the semaphore's internal mutex
	WriteLockName = "__WRIT__" // InterProcessReadWriteLock write lock
	ReadLockName  = "__READ__" // InterProcessReadWriteLock read lock
	LeaseLockName = "lease-"   // InterProcessSemaphoreV2 leases
)

// Driver describes a lock completely, and does no I/O: how contender nodes are named and
// sorted, how ours is created, and, from data only, whether we hold the lock or what we wait
// for. The acquire loop (recipes.NewLock) does the rest. Implementations must be immutable
// and safe for concurrent use; Decide must not call back into mutable state.
type Driver interface {
	// LockName is the name part of our contender nodes: "lock-", "__WRIT__", "__READ__",
	// "lease-", or a name of your own.
	LockName() string
	// SortKey is the key a child sorts by, byte-wise: usually KeyAfter(child, LockName()).
	SortKey(child string) string
	// Node says how our contender node is created.
	Node() Node
	// Decide applies the driver's predicate to a sorted listing. It must not allocate on the
	// hot path and must not modify v.Sorted.
	Decide(v View) Decision
}

// InputDriver is a Driver that also decides from the data of one node, its input (for
// example a shared maximum). The acquire loop reads that node, passes its data in View.Input,
// and wakes a waiter when it changes. One watch serves every contender of a lock object.
type InputDriver interface {
	Driver
	// Input is the input node's path (namespace-relative).
	Input() string
}

// Node says how a contender node is created. The zero Node is an ephemeral sequential node
// named after the lock name, carrying the lock's data.
type Node struct {
	// Fixed, when set, makes the node "<LockName><Fixed>", plain ephemeral, not sequential:
	// a downgraded read takes its writer's sequence this way.
	Fixed string
	// Data, when not nil, is the node's data instead of the lock's.
	Data []byte
}

// View is what a decision is made from: the listing sorted by the driver's key, our place
// in it, and the input node's data (nil for a driver without input).
type View struct {
	Sorted []string
	Index  int
	Input  []byte
}

// Decision is a driver's verdict. When Holds is false and Err is nil, exactly one of
// WatchNode and WatchDir says what to wait for before evaluating again.
type Decision struct {
	Holds     bool
	WatchNode string // the single child to getData-watch, or ""
	WatchDir  bool   // watch the directory's children instead (a semaphore)
	// GoneHolds says that the deletion of WatchNode proves that we hold while our own node
	// stands, so the loop need not list again (it checks our node with one exists): true when
	// WatchNode sorts first and no node created later can sort before ours (every contender of
	// the directory is sequential).
	GoneHolds bool
	// Err, when set, says the acquire can never succeed from here: the loop deletes our node
	// and returns Err.
	Err error
}
