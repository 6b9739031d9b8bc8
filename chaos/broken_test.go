package chaos

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// The three broken locks of the self-tests (reliability.md row 21).

// grabLock grants without waiting: it creates its contender node and
// returns at once, whoever else holds. With name "latch-" it is a broken
// LeaderLatch: a candidate that declares itself leader as soon as its node
// exists, without waiting for the nodes ahead of it.
type grabLock struct {
	fw   *framework.Framework
	res  string
	name string // the node's name before the sequence ("lock-" when empty)
}

func (l grabLock) TryAcquire(ctx context.Context) (Holder, error) { return l.Acquire(ctx) }

func (l grabLock) Acquire(ctx context.Context) (Holder, error) {
	sess := l.fw.Session()
	name := l.name
	if name == "" {
		name = "lock-"
	}
	node, err := l.fw.Create(ctx, l.res+"/"+name, nil, framework.WithMode(framework.EphemeralSequential),
		framework.CreatingParents(), framework.Protected())
	if err != nil {
		return nil, err
	}
	return &grabHolder{fw: l.fw, node: node, res: l.res, done: sess.Done()}, nil
}

type grabHolder struct {
	fw        *framework.Framework
	node, res string
	done      <-chan struct{}
}

func (h *grabHolder) Done() <-chan struct{} { return h.done }
func (h *grabHolder) Err() error            { return nil }
func (h *grabHolder) Release(ctx context.Context) error {
	return h.fw.Delete(ctx, h.node, framework.Guaranteed())
}
func (h *grabHolder) Parts() []Part {
	tok := func(ctx context.Context) (int64, error) {
		st, err := h.fw.Exists(ctx, h.node)
		if err != nil || st == nil {
			return 0, err
		}
		return st.Czxid, nil
	}
	return []Part{{Res: h.res, Token: tok, Guard: func() framework.Op { return framework.CheckOp(h.node, -1) }}}
}

// deafLock ignores Done: its holders are never told that the lock may be lost.
type deafLock struct{ inner Locker }

func (l deafLock) Acquire(ctx context.Context) (Holder, error) { return deaf(l.inner.Acquire(ctx)) }
func (l deafLock) TryAcquire(ctx context.Context) (Holder, error) {
	return deaf(l.inner.TryAcquire(ctx))
}

func deaf(h Holder, err error) (Holder, error) {
	if err != nil {
		return nil, err
	}
	return deafHolder{h}, nil
}

type deafHolder struct{ Holder }

func (deafHolder) Done() <-chan struct{} { return nil } // never closes
func (deafHolder) Err() error            { return nil }

// unfencedLock has no fencing: a constant token, and a guard on the lock
// directory (which always exists) instead of our node.
type unfencedLock struct{ inner Locker }

func (l unfencedLock) Acquire(ctx context.Context) (Holder, error) {
	return unfenced(l.inner.Acquire(ctx))
}
func (l unfencedLock) TryAcquire(ctx context.Context) (Holder, error) {
	return unfenced(l.inner.TryAcquire(ctx))
}

func unfenced(h Holder, err error) (Holder, error) {
	if err != nil {
		return nil, err
	}
	return unfencedHolder{h}, nil
}

type unfencedHolder struct{ Holder }

func (h unfencedHolder) Parts() []Part {
	parts := h.Holder.Parts()
	for i := range parts {
		dir := path.Dir(parts[i].Res + "/x")
		parts[i].Token = func(context.Context) (int64, error) { return 1, nil }
		parts[i].Guard = func() framework.Op { return framework.CheckOp(dir, -1) }
	}
	return parts
}

// misnamedLock's leases name a session that does not own their node: the
// belief rule would trust a wrong session, so the api checker must say so.
type misnamedLock struct{ inner Locker }

func (l misnamedLock) Acquire(ctx context.Context) (Holder, error) {
	return misnamed(l.inner.Acquire(ctx))
}
func (l misnamedLock) TryAcquire(ctx context.Context) (Holder, error) {
	return misnamed(l.inner.TryAcquire(ctx))
}

func misnamed(h Holder, err error) (Holder, error) {
	if lh, ok := h.(leaseHolder); ok && err == nil {
		lh.l = misnamedHeld{lh.l}
		return lh, nil
	}
	return h, err
}

type misnamedHeld struct{ recipes.Held }

func (h misnamedHeld) SessionID() int64 { return leaseHolder{l: h.Held}.SessionID() + 1 }

// eagerLock is the lock before issue 16 (commit f71ed96 and earlier): it deletes its node as
// soon as its holder is told (Done closed), although the holder is still stopping and its
// session may well survive a blip. The next waiter is granted about one round trip after the
// reconnect: the handoff checker must say so.
type eagerLock struct {
	fw    *framework.Framework
	inner Locker
	T     time.Duration
}

func (l eagerLock) Acquire(ctx context.Context) (Holder, error) { return l.eager(l.inner.Acquire(ctx)) }
func (l eagerLock) TryAcquire(ctx context.Context) (Holder, error) {
	return l.eager(l.inner.TryAcquire(ctx))
}

func (l eagerLock) eager(h Holder, err error) (Holder, error) {
	lh, ok := h.(leaseHolder)
	if err != nil || !ok {
		return h, err
	}
	go func() {
		<-lh.Done() // closes at the loss, or at the release
		ctx, cancel := context.WithTimeout(context.Background(), 2*l.T)
		defer cancel()
		_ = l.fw.Delete(ctx, lh.l.Path(), framework.Guaranteed()) // NoNode after a release
	}()
	return lh, nil
}

// oneByOneLock is a broken multi-lock for the transactional row's self-test: it takes one mutex
// after another in the order the caller named the paths (no transaction, no sorting), holding
// the earlier ones while it waits for the next. Two callers that name shared paths in crossing
// orders can each hold what the other waits for: a deadlock, which only their deadlines end.
type oneByOneLock struct {
	fw    *framework.Framework
	paths []string
}

// oneByOne replaces a transactional multi-lock of the workload by a oneByOneLock on its paths,
// in its order.
func oneByOne(fw *framework.Framework, spec OpSpec) Locker {
	return oneByOneLock{fw: fw, paths: spec.Locker.(txMultiLocker).m.Paths()}
}

func (l oneByOneLock) Acquire(ctx context.Context) (Holder, error) { return l.take(ctx, false) }
func (l oneByOneLock) TryAcquire(ctx context.Context) (Holder, error) {
	return l.take(ctx, true)
}

// take acquires (or, with try, try-acquires) each mutex in turn; on failure it releases what it
// holds, with a fresh bounded context.
func (l oneByOneLock) take(ctx context.Context, try bool) (Holder, error) {
	h := &oneByOneHolder{paths: l.paths}
	for _, p := range l.paths {
		m, err := recipes.NewMutex(l.fw, p)
		var le *recipes.Lease
		if err == nil && try {
			le, err = m.TryAcquire(ctx)
		} else if err == nil {
			le, err = m.Acquire(ctx)
		}
		if err != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = h.Release(rctx)
			return nil, err
		}
		h.leases = append(h.leases, le)
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	for _, le := range h.leases {
		context.AfterFunc(le.Context(), h.cancel) // Done: when any lease may be lost
	}
	return h, nil
}

type oneByOneHolder struct {
	paths  []string
	leases []*recipes.Lease
	ctx    context.Context
	cancel context.CancelFunc
}

func (h *oneByOneHolder) Done() <-chan struct{} { return h.ctx.Done() }
func (h *oneByOneHolder) Err() error {
	for _, le := range h.leases {
		if err := le.Err(); err != nil {
			return err
		}
	}
	return nil
}
func (h *oneByOneHolder) Parts() []Part {
	out := make([]Part, len(h.leases))
	for i, le := range h.leases {
		out[i] = leasePart(le, h.paths[i])
	}
	return out
}

// Release releases the leases in the reverse order.
func (h *oneByOneHolder) Release(ctx context.Context) error {
	var errs []error
	for i := len(h.leases) - 1; i >= 0; i-- {
		errs = append(errs, h.leases[i].Release(ctx))
	}
	return errors.Join(errs...)
}
