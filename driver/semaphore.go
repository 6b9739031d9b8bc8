package driver

import (
	"encoding/binary"
	"fmt"
)

// semaphoreDriver is InterProcessSemaphoreV2's lease check.
type semaphoreDriver struct {
	max   int    // fixed maximum, when input is ""
	input string // shared count node, or ""
	need  int    // leases the acquirer holds at once (shared maximum only)
}

// Semaphore is the lease driver of a counting semaphore's leases directory: lock name
// "lease-". We hold a lease when the directory has at most max children, counting our own
// lease and every other lease; otherwise we watch the directory's children (WatchDir). A child
// whose name ends in no 10-digit sequence is no lease but a foreign node, which would take a
// slot for ever: Decide fails with a ForeignNodeError. A max below 1 never holds: recipes
// reject it before waiting.
func Semaphore(max int) Driver {
	return semaphoreDriver{max: max}
}

// SharedSemaphore is Semaphore with its maximum read from the node countPath, in Curator's
// SharedCount encoding (see DecodeCount); a change of the count wakes waiters. need is the
// number of leases the acquirer will hold at once: a maximum below it fails with
// ErrCountTooLow instead of waiting for ever, and malformed data with ErrBadCount.
func SharedSemaphore(countPath string, need int) InputDriver {
	return semaphoreDriver{input: countPath, need: max(need, 1)}
}

// LockName returns "lease-".
func (semaphoreDriver) LockName() string { return LeaseLockName }

// SortKey returns the part of child after the last "lease-", or child itself.
func (semaphoreDriver) SortKey(child string) string { return KeyAfter(child, LeaseLockName) }

// Node is the zero Node: ephemeral sequential.
func (semaphoreDriver) Node() Node { return Node{} }

// Input returns the shared count's path ("" for a fixed maximum).
func (d semaphoreDriver) Input() string { return d.input }

// Decide holds when len(Sorted) <= the maximum, else asks to watch the directory. A child
// whose name ends in no sequence was made by no contender, and would take a slot for ever: it
// fails with a ForeignNodeError.
func (d semaphoreDriver) Decide(v View) Decision {
	if !inRange(v) {
		return Decision{}
	}
	for _, c := range v.Sorted {
		if !HasSequence(c) {
			return Decision{Err: &ForeignNodeError{Name: c, Reason: "no lease: its name ends in no sequence, and it takes a slot"}}
		}
	}
	limit := d.max
	if d.input != "" {
		n, err := DecodeCount(v.Input)
		if err != nil {
			return Decision{Err: err}
		}
		if n < d.need {
			return Decision{Err: fmt.Errorf("%w: maximum %d in %s, %d leases asked for", ErrCountTooLow, n, d.input, d.need)}
		}
		limit = n
	}
	if len(v.Sorted) <= limit {
		return Decision{Holds: true}
	}
	return Decision{WatchDir: true}
}

// DecodeCount parses Curator's SharedCount encoding: a 4-byte big-endian signed integer.
// Anything else is ErrBadCount.
func DecodeCount(data []byte) (int, error) {
	if len(data) != 4 {
		return 0, fmt.Errorf("%w: %d bytes, want 4", ErrBadCount, len(data))
	}
	return int(int32(binary.BigEndian.Uint32(data))), nil
}

// EncodeCount is DecodeCount's inverse.
func EncodeCount(n int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(n))
}
