package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// node is a held lock node: what Lease and SemaphoreLease share, and what a multi-lock's and
// a leader's term's leases are made of. Its life has one path, here, for every lease kind:
//
//   - held: granted, its session epoch live;
//   - lost: the framework's error policy says the session may be gone (Suspended or Lost under
//     the Standard policy, Lost only under the Session policy), or someone else deleted the
//     node (ErrNodeDeleted: see ownwatch.go; then there is nothing left to delete). Done closes with ErrLockLost
//     at once, but told is not stopped: while the session lives the node stays until the owner
//     releases it, or until the loss grace has passed, so that a blip never hands the lock
//     over sooner than Curator (which keeps the node through a reconnect) would;
//   - released: the owner let go, or the grace passed; the node is deleted (in the background
//     when the lease was lost, the framework closed, or ctx ended first).
type node struct {
	fw      *framework.Framework
	lock    *Lock // the lock that issued it
	path    string
	token   *token
	session *framework.Session // the epoch whose session created the node (its ephemeral owner)
	sess    int64              // session.ID()
	since   time.Time          // when it was granted
	slot    *slot              // the sticky slot the node is (sticky_cache.go), or nil
	visit   bool               // a sticky lock's visit: released with a background delete (sticky_visit.go)

	ctx    context.Context
	cancel context.CancelCauseFunc
	epoch  framework.EndHook // ties the node to its session epoch (lose)

	mu       sync.Mutex
	released bool                 // the owner let go, or the grace passed: the node is being deleted
	grace    *time.Timer          // runs while lost and not yet released
	stopOwn  *framework.WatchHook // stops the own watch's handler (ownwatch.go); nil until it is set
	ended    atomic.Bool          // end ran: the node no longer counts in its lock's held
}

// newNode ties a node granted by lock to its session epoch with Session.AfterEnd, so no
// goroutine waits for the epoch while the lock is held. It counts in the lock's
// IsAcquiredInThisProcess until it ends.
func newNode(lock *Lock, g grant) *node {
	var ctx context.Context
	var cancel context.CancelCauseFunc
	if g.arm != nil {
		ctx, cancel = g.arm.ctx, g.arm.cancel // the arm's getData ends with the lease
	} else {
		ctx, cancel = context.WithCancelCause(context.Background())
	}
	lock.held.Add(1)
	n := &node{fw: lock.fw, lock: lock, path: g.path, token: g.token, session: g.session, sess: g.session.ID(),
		since: time.Now(), ctx: ctx, cancel: cancel, slot: g.slot, visit: g.visit}
	lock.mine.add(path.Base(g.path))
	sess := g.session
	// The epoch's callback may run at once, on another goroutine: n is whole by now.
	sess.AfterEnd(&n.epoch, func() { n.lose(sess.Err()) })
	if !g.local && (g.slot == nil || g.own != nil) { // else the sticky slot's directory watch serves
		if g.arm != nil {
			g.arm.attach(n)
		} else {
			n.watchOwn(g.own)
		}
	}
	return n
}

// lose ends the lease with ErrLockLost, telling the holder first, and starts the loss grace:
// the node is deleted when the owner releases it or the grace has passed, whichever is first.
// A session that is known gone (expired, or the framework closed) took the node with it.
func (n *node) lose(reason error) {
	n.cancel(fmt.Errorf("%w: %s: %w", ErrLockLost, n.path, reason))
	if !n.end() {
		return
	}
	n.slot.holderLost(n)
	n.lock.event(eventLost, n.path, time.Since(n.since), reason)
	if errors.Is(reason, framework.ErrSessionLost) || errors.Is(reason, framework.ErrClosed) {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.released {
		n.grace = time.AfterFunc(n.lock.lossGrace(), n.graceOver)
	}
}

// graceOver deletes the node of a lost lease whose owner has not released it within the grace:
// the lock must not stay blocked for ever behind a holder that never lets go.
func (n *node) graceOver() {
	n.mu.Lock()
	if n.released {
		n.mu.Unlock()
		return
	}
	n.released = true
	n.mu.Unlock()
	n.lock.mine.remove(path.Base(n.path))
	n.fw.Logger().Warn("recipes: a lost lease was not released within its grace; deleting its node",
		"path", n.path, "grace", n.lock.lossGrace())
	n.fw.DeleteInBackground(n.path)
}

// end stops counting the node in its lock's held (IsAcquiredInThisProcess), once, and reports
// whether this call did.
func (n *node) end() bool {
	if !n.ended.CompareAndSwap(false, true) {
		return false
	}
	n.lock.held.Add(-1)
	return true
}

// release lets go of the node. A held node is deleted with a guaranteed delete bounded by ctx:
// if ctx ends first the delete goes on in the background and the error says so. A lost node
// (or one whose framework closed) is deleted in the background and release returns nil at once,
// as is a sticky lock's visit (sticky_visit.go).
func (n *node) release(ctx context.Context) error {
	if n.slot != nil {
		return n.slot.release(ctx, n) // a sticky lease: its node may be kept (sticky_release.go)
	}
	if !n.letGo() {
		return nil
	}
	if n.visit {
		n.lock.sticky.dropVisit(n.path) // sticky_visit.go
		return nil
	}
	return n.deleteNow(ctx)
}

// letGo is release but the delete of a held node: it ends the node's life and reports whether
// the caller must delete the node now (it was held); a lost node's delete it leaves to the
// background. A multi-lock lets go of every node of its set this way and deletes them in one
// transaction.
func (n *node) letGo() bool {
	if err := n.session.Err(); err != nil {
		n.lose(err) // the epoch ended and its callback has not run yet
	}
	n.mu.Lock()
	already := n.released
	n.released = true
	if n.grace != nil {
		n.grace.Stop()
	}
	n.stopOwn.Stop()
	n.mu.Unlock()
	n.lock.mine.remove(path.Base(n.path))
	n.epoch.Stop()
	n.cancel(releasedError(n.path))
	if n.end() {
		n.lock.event(eventReleased, n.path, time.Since(n.since), nil)
	}
	// The usual cause is releasedError (just above): a type check, before errors.Is's walk of
	// lose's chain (issue 27).
	if cause := context.Cause(n.ctx); !isReleased(cause) && errors.Is(cause, ErrLockLost) {
		if !already {
			n.fw.DeleteInBackground(n.path)
		}
		return false
	}
	return true
}

// isReleased reports whether err is a released lease's cause, releasedError.
func isReleased(err error) bool {
	_, ok := err.(releasedError)
	return ok
}

// deleteNow deletes a node that letGo let go of, with a guaranteed delete bounded by ctx.
func (n *node) deleteNow(ctx context.Context) error {
	if ctx.Err() != nil {
		n.fw.DeleteInBackground(n.path)
		return fmt.Errorf("recipes: release %s: the delete goes on in the background: %w", n.path, ctx.Err())
	}
	err := n.fw.Delete(ctx, n.path, framework.Guaranteed())
	switch {
	case err == nil, errors.Is(err, framework.ErrNoNode), errors.Is(err, framework.ErrClosed):
		return nil // a closed framework's session end deletes the node
	case ctx.Err() != nil:
		return fmt.Errorf("recipes: release %s: the delete goes on in the background: %w", n.path, err)
	}
	return fmt.Errorf("recipes: release %s: %w", n.path, err)
}

// discard releases the node as a cleanup (see cleanupContext), never an error the caller must
// handle: what does not finish in time goes on in the background.
func (n *node) discard(ctx context.Context) {
	dctx, cancel := cleanupContext(ctx, n.fw)
	defer cancel()
	if err := n.release(dctx); err != nil {
		n.fw.Logger().Debug("recipes: cleanup delete continues in the background", "path", n.path, "err", err)
	}
}

// cleanupWait bounds a cleanup on the caller's goroutine while its ctx is live: a round trip's
// allowance, so that a healthy connection returns with the nodes gone, and a caller without a
// deadline (context.Background()) is not held up by the retry policy on a partition.
const cleanupWait = time.Second

// cleanupContext bounds the cleanup of a failed or cancelled acquire (its own node, a
// multi-lock's rollback, the semaphore's internal mutex), one rule for all: never past ctx.
// While ctx is live and the framework connected the cleanup runs on the caller's goroutine, for
// at most cleanupWait; once ctx has ended, or while the framework is not connected, it gets no
// time at all. Whatever is not done by then goes on as a guaranteed delete in the background,
// for as long as the framework is open, so nothing is left while the session lives. A node left
// for the background still stands in its lock as a contender: it can make others wait a little
// longer, never let one in.
func cleanupContext(ctx context.Context, fw *framework.Framework) (context.Context, context.CancelFunc) {
	c, cancel := context.WithTimeout(ctx, cleanupWait)
	if !fw.State().IsConnected() {
		cancel()
	}
	return c, cancel
}
