package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// The broken sticky locks of row 30's self-test (issue 28, "Safety"), built on the public API
// around the row's real lock: each keeps the node of its last real grant as a cached flag and
// grants from it locally, with no request, skipping one of the checks a local re-grant must
// make (design.md "Sticky leases": live epoch, node still there, no conflicting contender seen).

// stickyBug names the check a brokenSticky skips.
type stickyBug int

const (
	// ignoresContenders releases its node for real at every Release, as a sticky lock does once
	// a contender queued, and still re-grants locally from its flag while its session lives:
	// after the node went, after the contender got the lock.
	ignoresContenders stickyBug = iota
	// ignoresEpoch keeps its node idle until a directory watch says a contender queued, and
	// re-grants locally as long as that watch has not fired: it takes the watch's end with the
	// session (go-zookeeper's NotWatching at an expiry) for silence, and binds the old node to
	// the new session.
	ignoresEpoch
)

// brokenStickies hands each client the same brokenSticky for a path and mode across picks
// (Scenario.Wrap is called at every pick).
type brokenStickies struct {
	bug stickyBug
	mu  sync.Mutex
	by  map[string]*brokenSticky
}

func newBrokenStickies(bug stickyBug) *brokenStickies {
	return &brokenStickies{bug: bug, by: make(map[string]*brokenSticky)}
}

// wrap is the Scenario.Wrap of the self-test.
func (s *brokenStickies) wrap(fw *framework.Framework, spec OpSpec) Locker {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := fmt.Sprintf("%p %s %s", fw, spec.Res, spec.Mode)
	b := s.by[k]
	if b == nil {
		b = &brokenSticky{fw: fw, inner: spec.Locker, res: spec.Res, bug: s.bug}
		s.by[k] = b
	}
	return b
}

// brokenSticky is one client's broken sticky lock on one path and mode. A client has one
// worker in the self-test, so one grant at a time.
type brokenSticky struct {
	fw    *framework.Framework
	inner Locker // the row's real lock
	res   string
	bug   stickyBug

	mu     sync.Mutex
	cached *recipes.Lease // the flag: the node of the last real grant
	token  int64          // its token, read while it was held
	kept   bool           // ignoresEpoch: the real lease is still held (the idle node)
	queued bool           // ignoresEpoch: the directory watch fired
	held   bool           // ignoresEpoch: a hold of the kept node is out
}

func (b *brokenSticky) TryAcquire(ctx context.Context) (Holder, error) { return b.Acquire(ctx) }

// Acquire grants locally from the flag when the bug lets it, else acquires for real.
func (b *brokenSticky) Acquire(ctx context.Context) (Holder, error) {
	b.mu.Lock()
	local := b.cached != nil && b.mayReuse()
	if b.bug == ignoresEpoch && b.kept && !local {
		b.dropKept()
	}
	if local {
		defer b.mu.Unlock()
		b.held = true
		return b.localGrant(), nil
	}
	b.cached = nil
	b.mu.Unlock()
	return b.acquire(ctx)
}

// mayReuse is the broken check of a local re-grant (b.mu held).
func (b *brokenSticky) mayReuse() bool {
	if b.bug == ignoresContenders {
		// the epoch is checked, the node and the contenders are not
		return b.cached.SessionID() == b.fw.SessionID() && b.fw.State().IsConnected()
	}
	return b.kept && !b.queued // the watch is checked, the epoch is not
}

// localGrant hands out the cached node under the current session's Done (b.mu held).
func (b *brokenSticky) localGrant() Holder {
	var done <-chan struct{} = closedChan
	if s := b.fw.Session(); s != nil {
		done = s.Done()
	}
	return leaseHolder{res: b.res, l: &cachedHeld{b: b, path: b.cached.Path(), token: b.token, sess: b.cached.SessionID(), done: done}}
}

// acquire takes the real lock and sets the flag.
func (b *brokenSticky) acquire(ctx context.Context) (Holder, error) {
	h, err := b.inner.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	le, ok := h.(leaseHolder).l.(*recipes.Lease)
	if !ok {
		return nil, errors.New("chaos: broken sticky lock over a lock that is no *recipes.Lease")
	}
	tok, err := le.Token(ctx)
	if err != nil {
		_ = le.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cached, b.token = le, tok
	if b.bug == ignoresContenders {
		return h, nil // its Release releases for real; the flag stays
	}
	b.kept, b.queued, b.held = true, false, true
	b.watch(ctx, le)
	return leaseHolder{res: b.res, l: &cachedHeld{b: b, path: le.Path(), token: tok, sess: le.SessionID(), done: le.Done()}}, nil
}

// watch sets the directory watch that tells ignoresEpoch of a contender: any change of the
// children, except the watch's own end (NotWatching: the session ended), which it ignores.
func (b *brokenSticky) watch(ctx context.Context, le *recipes.Lease) {
	kids, _, w, err := b.fw.ChildrenW(ctx, b.res)
	if err != nil || len(kids) > 1 {
		b.queued = true
		return
	}
	go func() {
		ev, ok := <-w.Events()
		if !ok || ev.Type == zk.EventNotWatching {
			return // the bug: the session's end is taken for silence
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.cached == le {
			b.queued = true
			if !b.held {
				b.dropKept() // idle: the node goes at once
			}
		}
	}()
}

// dropKept releases the kept real lease for real (b.mu held).
func (b *brokenSticky) dropKept() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = b.cached.Release(ctx)
	b.cached, b.kept = nil, false
}

// release ends a hold given from the flag: ignoresEpoch keeps the node idle unless a contender
// queued; ignoresContenders has nothing to release (its node went at the real Release).
func (b *brokenSticky) release(path string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cached == nil || b.cached.Path() != path {
		return
	}
	b.held = false
	if b.bug == ignoresEpoch && b.kept && b.queued {
		b.dropKept()
	}
}

// closedChan is a Done for a grant made while no session exists: told at once.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// cachedHeld is a hold given from the flag: the cached node, its token and guard, and a Done.
type cachedHeld struct {
	b     *brokenSticky
	path  string
	token int64
	sess  int64
	done  <-chan struct{}
}

func (h *cachedHeld) Path() string                         { return h.path }
func (h *cachedHeld) Done() <-chan struct{}                { return h.done }
func (h *cachedHeld) Err() error                           { return nil }
func (h *cachedHeld) Context() context.Context             { return context.Background() }
func (h *cachedHeld) Token(context.Context) (int64, error) { return h.token, nil }
func (h *cachedHeld) Guard() framework.Op                  { return framework.CheckOp(h.path, -1) }
func (h *cachedHeld) SessionID() int64                     { return h.sess }
func (h *cachedHeld) Release(context.Context) error        { h.b.release(h.path); return nil }
