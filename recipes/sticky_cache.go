package recipes

import (
	"context"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// The sticky cache of a Lock (WithSticky; issue 28, design.md "Sticky leases"). A lease
// granted by the acquire loop may become the lock's slot: at its Release the node is kept,
// idle, instead of deleted, and a later Acquire in this process is granted from it with no
// request, only while every check of a normal grant still holds:
//
//   - the session epoch that created the node is live (Session.Err: the same deadline rules as
//     Lease.Err);
//   - the directory watch set by the last listing, which found no conflicting contender, has
//     not fired (a create or delete of any child, ours included: so the node still stands) and
//     has not been interrupted by a disconnect (after one, a fresh listing, ordered after
//     go-zookeeper's re-sent watches, must come first).
//
// A lease's life gains a fourth state: held, idle, lost, released. An idle node goes (a
// guaranteed delete) as soon as a conflicting contender is seen (the driver's Conflicts), after
// the idle time, at Lock.Close, and with its session. Goroutines of this process share the
// slot in FIFO order while nobody else wants it (drivers whose grants exclude each other); for
// a read lock, whose readers share, a second local reader takes a node of its own beside it.
type stickyCache struct {
	lock   *Lock
	drv    driver.StickyDriver
	idle   time.Duration
	shared bool // two grants of the driver do not exclude each other (a read lock)

	mu     sync.Mutex
	slot   *slot // the cached node, or nil
	policy stickyPolicy
	missed bool // this process's last normal acquisition was not granted on its create's listing (sticky_listed.go)
	closed bool
	stale  atomic.Pointer[staleNode] // the last ended slot's node, while its delete may still be in flight
}

// slotState is where the slot's node is in its life.
type slotState uint8

const (
	slotHeld     slotState = iota // a local lease holds it, or one is handed to a local waiter
	slotIdle                      // released and kept: a local Acquire may take it
	slotChecking                  // released; a listing in flight decides whether it is kept
	slotGone                      // ended: deleted, being deleted, or gone with its session
)

// slot is the one node a sticky lock caches, shared by the successive local leases granted
// from it. Its fields after session are guarded by the cache's mutex.
type slot struct {
	c       *stickyCache
	path    string
	name    string
	session *framework.Session // the epoch that created the node
	token   *token

	state     slotState
	holder    *node            // the local lease holding it, while held (nil while being handed over)
	watch     *framework.Watch // the directory watch of the last listing that found no conflict
	arming    chan struct{}    // closes when the first lease's directory watch is set (or failed)
	armed     bool             // the directory watch's listing (armDir's, or the create's) has been decided on
	listed    *listedDir       // the create's listing and its watch, until attach decides on them (sticky_listed.go)
	conflict  bool             // a conflicting contender was seen while held: delete at release
	reuses    int              // local grants
	queued    bool             // the grant that made the slot queued behind another node (a visit: sticky_visit.go)
	waiters   []chan *Lease    // local acquirers in FIFO order; nil on the channel: take the normal way
	timer     *time.Timer      // the idle time
	idleSince time.Time        // when the slot last became idle
	stopEpoch func() bool
	ctx       context.Context // ends with the slot: bounds its listings
	cancel    context.CancelFunc
}

// newStickyCache checks that l's driver may be cached and builds its cache; idle is
// WithSticky's idle time.
func newStickyCache(l *Lock, idle time.Duration) (*stickyCache, error) {
	sd, ok := l.drv.(driver.StickyDriver)
	if !ok || !sd.Sticky() {
		return nil, fmt.Errorf("%w: WithSticky: the driver %T (lock name %q) does not allow cached leases (driver.StickyDriver)",
			ErrInvalidArgument, l.drv, l.drv.LockName())
	}
	if in, ok := l.drv.(driver.InputDriver); ok && in.Input() != "" {
		return nil, fmt.Errorf("%w: WithSticky: the driver %T decides from an input node", ErrInvalidArgument, l.drv)
	}
	probe := l.drv.LockName() + "0000000000"
	return &stickyCache{lock: l, drv: sd, idle: idle, shared: !sd.Conflicts(probe, probe)}, nil
}

// adopt makes the grant g, just made by the acquire loop with drv, the lock's slot, when the
// lock caches drv's grants, has no slot yet, is not closed, and the adaptive policy allows.
func (c *stickyCache) adopt(g *grant, drv driver.Driver) {
	if c == nil || drv != c.lock.drv {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.slot != nil {
		return
	}
	now := time.Now()
	if !c.policy.keep(now, g.queued) {
		g.visit = g.queued && c.policy.visits.background(now) // its release deletes in the background (sticky_visit.go)
		return
	}
	s := &slot{c: c, path: g.path, name: path.Base(g.path), session: g.session, token: g.token, state: slotHeld, queued: g.queued, listed: g.dir}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.stopEpoch = context.AfterFunc(g.session.Context(), s.epochEnded)
	c.slot = s
	g.slot = s
}

// attach records n, the lease just made from an adopted grant, as the slot's holder. When the
// loop set no watch on the node (arm: no handoff), the slot's directory watch is the one the
// create's listing set, when the grant came from that listing and its watch is still good
// (useListed), else set now, off the caller's path, by a listing of its own (armDir): instead of
// the lease's own-node watch, one watch per node, which tells the lease that its node was
// deleted and the slot that a contender queued.
func (c *stickyCache) attach(n *node, arm bool) {
	if c == nil || n.slot == nil {
		return
	}
	c.mu.Lock()
	s := n.slot
	d := s.listed
	s.listed = nil
	if s.state != slotHeld {
		c.mu.Unlock()
		return
	}
	s.holder = n
	if !arm {
		c.mu.Unlock()
		return
	}
	if s.useListed(d) { // unlocks c.mu
		return
	}
	s.arming = make(chan struct{})
	c.mu.Unlock()
	go s.armDir(s.arming)
}

// localLease makes a lease of the slot for a local grant: no request, no watch of its own (the
// slot's directory watch tells it that its node was deleted). Called with c.mu held.
func (c *stickyCache) localLease(s *slot) *Lease {
	s.state = slotHeld
	s.reuses++
	if s.timer != nil {
		s.timer.Stop()
	}
	l := newLease(c.lock, grant{path: s.path, session: s.session, token: s.token, slot: s, local: true})
	s.holder = l.node
	return l
}

// grantable reports whether the slot's node may be granted locally now: its epoch is live and
// its directory watch has neither fired nor been interrupted since the listing that found no
// conflict. Called with c.mu held.
func (s *slot) grantable() bool {
	if s.session.Err() != nil || s.watch == nil || s.watch.HasFired() {
		return false
	}
	select {
	case <-s.watch.Interrupted():
		return false
	default:
		return true
	}
}

// recheckable reports whether a fresh listing may still keep the slot (it is not grantable):
// its epoch is live, and its watch was only interrupted, or fired on a lock whose readers share
// (the change may be a reader). Called with c.mu held.
func (s *slot) recheckable() bool {
	return s.session.Err() == nil && s.watch != nil && (s.c.shared || !s.watch.HasFired())
}

// end ends the slot's life, for why (see policy.ended), and sends every local waiter the normal
// way. The caller deletes the node if it must. Called with c.mu held.
func (c *stickyCache) end(s *slot, wasted bool) {
	if s.state == slotGone {
		return
	}
	s.state = slotGone
	if c.slot == s {
		c.slot = nil
	}
	s.cancel()
	s.stopEpoch()
	if s.timer != nil {
		s.timer.Stop()
	}
	c.policy.ended(time.Now(), s.reuses > 0, wasted && s.reuses == 0, s.queued)
	for _, w := range s.waiters {
		w <- nil
	}
	s.waiters = nil
}

// staleNode is the node of an ended slot, and the end of its background delete.
type staleNode struct {
	path string
	gone <-chan struct{} // closes when the framework's guaranteed delete has ended
}

// dropInBackground deletes the node of an ended slot in the background (the framework's
// guaranteed delete, the one delete of that node), and remembers it until that delete has
// ended: the lock then forgets it (forgetStale), or the next acquire that takes the normal way
// waits for it first (flushStale). Safe with or without c.mu held.
func (c *stickyCache) dropInBackground(p string) {
	st := &staleNode{path: p, gone: c.lock.fw.DeleteInBackground(p)}
	c.stale.Store(st)
	go c.forgetStale(st)
}

// forgetStale forgets st once its delete has ended (done, the node gone, refused, or the
// framework closed: the delete's goroutine ends then, and so does this one), so that no later
// acquire waits for it.
func (c *stickyCache) forgetStale(st *staleNode) {
	<-st.gone
	c.stale.CompareAndSwap(st, nil)
}

// flushStale waits, bounded by ctx, for the background delete of an ended slot's node (after a
// blip it waits for the retry policy's next round), before an acquire queues a node of its own:
// that node of ours, which nobody holds, would otherwise stand ahead of it, and a TryAcquire
// would fail, "held by another contender". It sends no delete of its own: the framework's
// guaranteed delete is already queued, and a second one would be a repeated round trip. If ctx
// ends first the background delete goes on and the acquire queues behind the node, as before.
func (c *stickyCache) flushStale(ctx context.Context) {
	if c == nil {
		return
	}
	st := c.stale.Load()
	if st == nil || ctx.Err() != nil {
		return
	}
	select {
	case <-st.gone:
		c.stale.CompareAndSwap(st, nil)
	case <-ctx.Done():
	}
}
