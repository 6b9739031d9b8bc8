package driver

// standardDriver is Curator's StandardLockInternalsDriver: hold below index maxLeases,
// else watch the node maxLeases places ahead.
type standardDriver struct {
	lockName  string
	maxLeases int
	rw        bool // sort with the read-write key; the directory may hold non-sequential reads
}

// Exclusive is the InterProcessMutex driver: lock name "lock-", maxLeases 1. We hold the
// lock at index 0; otherwise we watch our immediate predecessor.
func Exclusive() Driver {
	return standardDriver{lockName: MutexLockName, maxLeases: 1}
}

// Standard is Curator's standard driver for any lock name and maxLeases: we hold when our
// index is below maxLeases, otherwise we watch the node maxLeases places ahead of ours.
// maxLeases below 1 is raised to 1. An empty lockName sorts by whole child names.
func Standard(lockName string, maxLeases int) Driver {
	return standardDriver{lockName: lockName, maxLeases: max(maxLeases, 1)}
}

// Write is the read-write lock's write driver: lock name "__WRIT__", the exclusive
// predicate, and the read-write sort key (strip "__READ__" then "__WRIT__"), so a writer
// waits for every earlier reader and writer.
func Write() Driver {
	return standardDriver{lockName: WriteLockName, maxLeases: 1, rw: true}
}

// LockName returns the driver's lock name.
func (d standardDriver) LockName() string { return d.lockName }

// SortKey returns the part of child after the last occurrence of the lock name (for
// Write, after "__READ__" and then "__WRIT__"), or child itself.
func (d standardDriver) SortKey(child string) string {
	if d.rw {
		return rwSortKey(child)
	}
	return KeyAfter(child, d.lockName)
}

// Node is the zero Node: ephemeral sequential.
func (standardDriver) Node() Node { return Node{} }

// Decide holds when Index < maxLeases, else watches Sorted[Index-maxLeases]. Its deletion
// proves that we hold when it sorts first, except in a read-write directory, where a
// downgraded read (not sequential) may appear ahead of us.
func (d standardDriver) Decide(v View) Decision {
	if !inRange(v) {
		return Decision{}
	}
	if v.Index < d.maxLeases {
		return Decision{Holds: true}
	}
	w := v.Index - d.maxLeases
	return Decision{WatchNode: v.Sorted[w], GoneHolds: w == 0 && !d.rw}
}
