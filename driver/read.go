package driver

import "strings"

// readDriver is the read-write lock's read driver.
type readDriver struct {
	writer string // our own write node's name when downgrading, else ""
}

// Read is the read-write lock's read driver: lock name "__READ__", sort key as Write. We
// hold the read lock when no "__WRIT__" node sorts before ours; otherwise we watch the
// FIRST writer in sort order, ignoring writers queued after us.
//
// writer is empty for a plain read. For a downgrade it is the name of the write node that
// the same owner holds: our node then takes that writer's sequence (Node.Fixed), so that a
// writer queued behind cannot get in when the write lock is released, and we hold only
// while that write node is in the very listing that decides. Without it the write lock may
// already belong to someone else, and Decide fails with ErrWriterMissing.
func Read(writer string) Driver {
	return readDriver{writer: writer}
}

// LockName returns "__READ__".
func (readDriver) LockName() string { return ReadLockName }

// SortKey strips through "__READ__" and then through "__WRIT__".
func (readDriver) SortKey(child string) string { return rwSortKey(child) }

// Node is ephemeral sequential for a plain read, and "__READ__<writer's sequence>", not
// sequential, for a downgrade.
func (d readDriver) Node() Node {
	if d.writer == "" {
		return Node{}
	}
	return Node{Fixed: KeyAfter(d.writer, WriteLockName)}
}

// Decide holds a downgrade while its writer is listed, and a plain read when no writer sorts
// before us; otherwise it watches the first writer in sort order.
func (d readDriver) Decide(v View) Decision {
	if !inRange(v) {
		return Decision{}
	}
	if d.writer != "" {
		for _, c := range v.Sorted {
			if c == d.writer {
				return Decision{Holds: true}
			}
		}
		return Decision{Err: ErrWriterMissing}
	}
	for _, c := range v.Sorted[:v.Index] {
		if strings.Contains(c, WriteLockName) {
			return Decision{WatchNode: c}
		}
	}
	return Decision{Holds: true}
}
