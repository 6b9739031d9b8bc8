package chaos

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// Locker is what a workload acquires: one of the recipes, or a broken lock
// of the self-tests.
type Locker interface {
	// Acquire blocks until held or ctx ends.
	Acquire(ctx context.Context) (Holder, error)
	// TryAcquire takes the lock only if it is free now.
	TryAcquire(ctx context.Context) (Holder, error)
}

// Holder is a held lock as a workload sees it.
type Holder interface {
	// Done closes when the holder may have lost the lock.
	Done() <-chan struct{}
	// Err says why Done closed.
	Err() error
	// Parts are the locks held: one, or one per path of a multi-lock.
	Parts() []Part
	// Release gives the lock back.
	Release(ctx context.Context) error
}

// Part is one lock of a Holder, with what fences writes under it.
type Part struct {
	Res   string                                   // the lock path
	Token func(ctx context.Context) (int64, error) // the fencing token
	Guard func() framework.Op                      // the guard op for Multi
	Node  string                                   // the lock node, when known (FenceByNode)
}

// leaseHolder adapts a held lease (recipes.Held: a *Lease or a
// *SemaphoreLease).
type leaseHolder struct {
	l   recipes.Held
	res string
}

func (h leaseHolder) Done() <-chan struct{}             { return h.l.Done() }
func (h leaseHolder) Err() error                        { return h.l.Err() }
func (h leaseHolder) Release(ctx context.Context) error { return h.l.Release(ctx) }
func (h leaseHolder) Parts() []Part                     { return []Part{leasePart(h.l, h.res)} }

// SessionID is the session that owns the lease's node.
func (h leaseHolder) SessionID() int64 {
	if s, ok := h.l.(interface{ SessionID() int64 }); ok {
		return s.SessionID()
	}
	return 0
}

// Every holder of a real recipe names the session that owns its node, which
// the belief checker matches against the sessions the nemesis expired.
var (
	_ interface{ SessionID() int64 } = (*recipes.Lease)(nil)
	_ interface{ SessionID() int64 } = (*recipes.SemaphoreLease)(nil)
	_ interface{ SessionID() int64 } = leaseHolder{}
	_ interface{ SessionID() int64 } = multiHolder{}
	_ interface{ SessionID() int64 } = termHolder{}
)

// sessionOf returns the session that owns h's node(s), if h says (0 if not).
func sessionOf(h Holder) int64 {
	if s, ok := h.(interface{ SessionID() int64 }); ok {
		return s.SessionID()
	}
	return 0
}

// leasePart fences with the lease's own token and guard.
func leasePart(l recipes.Held, res string) Part {
	return Part{Res: res, Token: l.Token, Guard: l.Guard, Node: l.Path()}
}

// multiHolder adapts a *recipes.MultiLease.
type multiHolder struct {
	ml    *recipes.MultiLease
	paths []string
}

func (h multiHolder) Done() <-chan struct{}             { return h.ml.Done() }
func (h multiHolder) Err() error                        { return h.ml.Err() }
func (h multiHolder) Release(ctx context.Context) error { return h.ml.Release(ctx) }

// SessionID is the session that owns every part's node (0 if they differ).
func (h multiHolder) SessionID() int64 {
	var id int64
	for i, l := range h.ml.Leases() {
		s := leaseHolder{l: l}.SessionID()
		if i > 0 && s != id {
			return 0
		}
		id = s
	}
	return id
}
func (h multiHolder) Parts() []Part {
	ls := h.ml.Leases()
	out := make([]Part, len(ls))
	for i, l := range ls {
		out[i] = leasePart(l, h.paths[i])
	}
	return out
}

// acquirer is the shape shared by the recipes' Acquire and TryAcquire.
type acquirer func(ctx context.Context) (recipes.Held, error)

// lockerOf adapts a recipe's acquire and try-acquire.
type lockerOf struct {
	res        string
	acquire    acquirer
	tryAcquire acquirer
}

func (l lockerOf) Acquire(ctx context.Context) (Holder, error) {
	return wrapLease(l.acquire(ctx))(l.res)
}
func (l lockerOf) TryAcquire(ctx context.Context) (Holder, error) {
	return wrapLease(l.tryAcquire(ctx))(l.res)
}

func wrapLease(le recipes.Held, err error) func(string) (Holder, error) {
	return func(res string) (Holder, error) {
		if err != nil {
			return nil, err
		}
		return leaseHolder{l: le, res: res}, nil
	}
}

// MutexLocker returns an InterProcessMutex on path as a Locker.
func MutexLocker(fw *framework.Framework, path string) (Locker, error) {
	m, err := recipes.NewMutex(fw, path)
	if err != nil {
		return nil, err
	}
	return lockOf(path, m.Lock), nil
}

// lockOf adapts a recipes.Lock.
func lockOf(res string, l *recipes.Lock) lockerOf {
	return lockerOf{res: res,
		acquire:    func(ctx context.Context) (recipes.Held, error) { return held(l.Acquire(ctx)) },
		tryAcquire: func(ctx context.Context) (recipes.Held, error) { return held(l.TryAcquire(ctx)) }}
}

// held turns a (*Lease, error) into a (Held, error) without a typed nil.
func held(l *recipes.Lease, err error) (recipes.Held, error) {
	if err != nil {
		return nil, err
	}
	return l, nil
}

// ReadWriteLockers returns the read and the write half of an
// InterProcessReadWriteLock on path.
func ReadWriteLockers(fw *framework.Framework, path string) (read, write Locker, err error) {
	rw, err := recipes.NewReadWriteLock(fw, path)
	if err != nil {
		return nil, nil, err
	}
	return lockOf(path, rw.ReadLock().Lock), lockOf(path, rw.WriteLock().Lock), nil
}

// SemaphoreLocker returns a semaphore of max leases on path; each Acquire
// takes one lease.
func SemaphoreLocker(fw *framework.Framework, path string, max int) (Locker, error) {
	s, err := recipes.NewSemaphore(fw, path, max)
	if err != nil {
		return nil, err
	}
	one := func(ctx context.Context) (recipes.Held, error) {
		ls, err := s.Acquire(ctx, 1)
		if err != nil {
			return nil, err
		}
		return ls[0], nil
	}
	try := func(ctx context.Context) (recipes.Held, error) {
		ls, err := s.TryAcquire(ctx, 1)
		if err != nil {
			return nil, err
		}
		return ls[0], nil
	}
	return lockerOf{res: path, acquire: one, tryAcquire: try}, nil
}

// multiLocker adapts an InterProcessMultiLock.
type multiLocker struct {
	m *recipes.InterProcessMultiLock
}

// MultiLocker returns a multi-lock of one mutex per path.
func MultiLocker(fw *framework.Framework, paths ...string) (Locker, error) {
	m, err := recipes.NewMultiMutex(fw, paths...)
	if err != nil {
		return nil, err
	}
	return multiLocker{m: m}, nil
}

func (l multiLocker) Acquire(ctx context.Context) (Holder, error) {
	ml, err := l.m.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return multiHolder{ml: ml, paths: l.m.Paths()}, nil
}

// TryAcquire of a multi-lock is an Acquire that may not wait.
func (l multiLocker) TryAcquire(ctx context.Context) (Holder, error) {
	ctx, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	return l.Acquire(ctx)
}

// txMultiLocker adapts a transactional multi-lock (recipes.NewTxMultiLock): one transaction
// queues the set, in the order the caller named the paths.
type txMultiLocker struct {
	m *recipes.InterProcessMultiLock
}

// TxMultiLocker returns a transactional multi-lock of one mutex per path, in the order given
// (no sorting).
func TxMultiLocker(fw *framework.Framework, paths ...string) (Locker, error) {
	m, err := recipes.NewTxMultiMutex(fw, paths...)
	if err != nil {
		return nil, err
	}
	return txMultiLocker{m: m}, nil
}

func (l txMultiLocker) Acquire(ctx context.Context) (Holder, error) {
	return l.holder(l.m.Acquire(ctx))
}

// TryAcquire takes the whole set only if every lock is granted by the listings right behind
// the transaction (recipes.InterProcessMultiLock.TryAcquire).
func (l txMultiLocker) TryAcquire(ctx context.Context) (Holder, error) {
	return l.holder(l.m.TryAcquire(ctx))
}

func (l txMultiLocker) holder(ml *recipes.MultiLease, err error) (Holder, error) {
	if err != nil {
		return nil, err
	}
	return txHolder{multiHolder{ml: ml, paths: l.m.Paths()}}, nil
}

// txHolder is a held transactional set: a multiHolder whose nodes the harness looks at right
// after the grant (checkNode), one per lock.
type txHolder struct{ multiHolder }

// nodes returns the set's nodes, in Parts' order.
func (h txHolder) nodes() []string {
	ls := h.ml.Leases()
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Path()
	}
	return out
}
