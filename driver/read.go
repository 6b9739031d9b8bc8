package driver

import "strings"

// readDriver is the read-write lock's read driver.
type readDriver struct {
	ownsWrite func() bool
}

// Read is the read-write lock's read driver: lock name "__READ__", sort key as Write.
// We hold the read lock when ownsWrite reports that the same owner holds the write lock of
// the same read-write lock (downgrade), or when no "__WRIT__" node sorts before ours;
// otherwise we watch the FIRST writer in sort order, ignoring writers queued after us.
// ownsWrite may be nil (never owns); it is called on every Decide and must be cheap and
// safe for concurrent use.
func Read(ownsWrite func() bool) Driver {
	return readDriver{ownsWrite: ownsWrite}
}

// LockName returns "__READ__".
func (readDriver) LockName() string { return ReadLockName }

// SortKey strips through "__READ__" and then through "__WRIT__".
func (readDriver) SortKey(child string) string { return rwSortKey(child) }

// Decide holds if we own the write lock or no writer sorts before us, else watches the
// first writer in sort order.
func (d readDriver) Decide(sorted []string, ourIndex int) Decision {
	if ourIndex < 0 || ourIndex >= len(sorted) {
		return Decision{}
	}
	if d.ownsWrite != nil && d.ownsWrite() {
		return Decision{Holds: true}
	}
	for _, c := range sorted[:ourIndex] {
		if strings.Contains(c, WriteLockName) {
			return Decision{WatchNode: c}
		}
	}
	return Decision{Holds: true}
}
