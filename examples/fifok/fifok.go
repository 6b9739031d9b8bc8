// Package fifok is a worked example of a lock driver written outside package recipes: a lock
// that admits at most k holders at once, in FIFO order. It is the "Writing your own recipe"
// walkthrough of docs/custom-recipes.md; recipes.NewLock gives it every guarantee of the
// acquire loop (protected create, container parents, one deadline, cleanup on failure, the
// loss signal, the fencing token).
package fifok

import (
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// LockName names the contender nodes: P/_c_<uuid>-slot-<seq>.
const LockName = "slot-"

// ErrBadK is returned for k < 1.
var ErrBadK = errors.New("fifok: k must be at least 1")

// Driver admits the first k contenders in sequence order. It is immutable and does no I/O.
type Driver struct{ k int }

// New returns the driver for k holders.
func New(k int) (Driver, error) {
	if k < 1 {
		return Driver{}, fmt.Errorf("%w: %d", ErrBadK, k)
	}
	return Driver{k: k}, nil
}

// LockName is the name part of our nodes; the acquire loop creates "<LockName><seq>".
func (Driver) LockName() string { return LockName }

// SortKey orders contenders by the 10-digit sequence after the lock name.
func (Driver) SortKey(child string) string { return driver.KeyAfter(child, LockName) }

// Node asks for the default: an ephemeral sequential node with the lock's data.
func (Driver) Node() driver.Node { return driver.Node{} }

// Decide holds among the first k. A waiter watches the node k places ahead of it, so that
// each release wakes one waiter, not the herd. Every node is sequential, so nothing can ever
// sort before ours again: when the watched node was first (we are at index k) its deletion
// alone puts us at index k-1, and the loop may grant without listing again.
func (d Driver) Decide(v driver.View) driver.Decision {
	if v.Index < 0 || v.Index >= len(v.Sorted) {
		return driver.Decision{Err: fmt.Errorf("fifok: index %d outside the listing", v.Index)}
	}
	if v.Index < d.k {
		return driver.Decision{Holds: true}
	}
	return driver.Decision{WatchNode: v.Sorted[v.Index-d.k], GoneHolds: v.Index == d.k}
}

// NewLock returns a lock on path that admits at most k holders; each Acquire is a contender.
// Cancellation and session loss behave as for every recipes.Lock: a cancelled Acquire deletes
// its node and returns ctx's error; a held lease's Done closes when the session is suspended
// or lost per the framework's error policy.
func NewLock(fw *framework.Framework, path string, k int, opts ...recipes.LockOption) (*recipes.Lock, error) {
	d, err := New(k)
	if err != nil {
		return nil, err
	}
	return recipes.NewLock(fw, path, d, opts...)
}
