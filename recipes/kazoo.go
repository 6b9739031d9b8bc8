package recipes

import (
	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// NewKazooMutex returns a mutex that contends on path with kazoo's (Python) Lock and WriteLock:
// a Lock with the KazooLock driver. Our node is P/_c_<uuid>-__lock__<seq>, which kazoo takes
// for one of its own; every contender sorts by its sequence, and we wait for every earlier node
// (kazoo's readers included). kazoo needs no extra_lock_patterns. Every guarantee of the loop
// holds as for NewMutex: protected create, Done on loss, the fencing token, reentrancy through
// the lease. Options as NewMutex. It does no I/O. Never put a Curator-layout recipe (NewMutex,
// NewReadWriteLock, Curator itself) on a kazoo path: see docs/interop.md.
func NewKazooMutex(fw *framework.Framework, path string, opts ...LockOption) (*InterProcessMutex, error) {
	l, err := NewLock(fw, path, driver.KazooLock(), kindLast(opts, KindKazooLock)...)
	if err != nil {
		return nil, err
	}
	return &InterProcessMutex{Lock: l}, nil
}

// NewKazooReadWriteLock returns a read-write lock that contends on path with kazoo's ReadLock
// and WriteLock: readers create P/_c_<uuid>-__rlock__<seq> (KazooRead) and writers
// P/_c_<uuid>-__lock__<seq> (KazooLock). A reader holds when no non-reader sorts before it, a
// writer when nothing does. Options as NewReadWriteLock; there is no Downgrade (kazoo has
// none: ReadLock().Downgrade fails with ErrForeignLease). It does no I/O.
func NewKazooReadWriteLock(fw *framework.Framework, path string, opts ...LockOption) (*InterProcessReadWriteLock, error) {
	r, err := NewLock(fw, path, driver.KazooRead(), kindLast(opts, KindKazooRead)...)
	if err != nil {
		return nil, err
	}
	w, err := NewLock(fw, path, driver.KazooLock(), kindLast(opts, KindKazooLock)...)
	if err != nil {
		return nil, err
	}
	pairHalves(r, w, false)
	return &InterProcessReadWriteLock{read: &ReadLock{r}, write: &WriteLock{w}}, nil
}
