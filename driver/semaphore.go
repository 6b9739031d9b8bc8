package driver

// semaphoreDriver is InterProcessSemaphoreV2's lease check.
type semaphoreDriver struct {
	max int
}

// Semaphore is the lease driver of a counting semaphore's leases directory: lock name
// "lease-". We hold a lease when the directory has at most max children, counting our own
// lease and every other child whatever its name; otherwise we watch the directory's
// children (WatchDir). A max below 1 never holds: recipes must reject it before waiting.
func Semaphore(max int) Driver {
	return semaphoreDriver{max: max}
}

// LockName returns "lease-".
func (semaphoreDriver) LockName() string { return LeaseLockName }

// SortKey returns the part of child after the last "lease-", or child itself.
func (semaphoreDriver) SortKey(child string) string { return KeyAfter(child, LeaseLockName) }

// Decide holds when len(sorted) <= max, else asks to watch the directory.
func (d semaphoreDriver) Decide(sorted []string, ourIndex int) Decision {
	if ourIndex < 0 || ourIndex >= len(sorted) {
		return Decision{}
	}
	if len(sorted) <= d.max {
		return Decision{Holds: true}
	}
	return Decision{WatchDir: true}
}
