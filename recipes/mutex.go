package recipes

import (
	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// InterProcessMutex is a reentrant, fair, distributed mutex with the znode layout of
// Curator's InterProcessMutex: each contender is an ephemeral sequential node
// P/_c_<uuid>-lock-<seq>, and each waiter watches only the node just ahead of it. Java
// processes using Curator 5 can contend on the same path. It is a Lock with the Exclusive
// driver.
//
// The mutex is safe for concurrent use. Each Acquire is a new contender, so two goroutines
// (or two InterProcessMutex values on one path) exclude each other even in one process and
// one session: unlike Curator, a second plain Acquire by the holder waits for itself.
// Reentrancy goes through the lease: Lease.Reenter.
type InterProcessMutex struct {
	*Lock
}

// NewMutex returns a mutex on path (options: WithNodeData, WithRevocation). It does no I/O;
// the path's nodes are created on first Acquire, as containers.
func NewMutex(fw *framework.Framework, path string, opts ...LockOption) (*InterProcessMutex, error) {
	l, err := NewLock(fw, path, driver.Exclusive(), kindLast(opts, KindMutex)...)
	if err != nil {
		return nil, err
	}
	return &InterProcessMutex{Lock: l}, nil
}
