package recipes

import (
	"context"
	"path"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The acquire loop is cut at its waits (issue 27). Each burst of requests that depend on each
// other (the listing behind the create, the decision and the watch on the node ahead; after a
// wake, the own-node check or the re-listing and the next watch) runs on ONE goroutine, its
// requests inline. Under a context that can end the bursts and the wake-ups between them run as
// a chain on warm goroutines, started by the watch's news (chain.go), and the caller waits for
// the outcome alone; under one that cannot, everything runs on the caller's goroutine.
// go-zookeeper has no call that a context can end, so a request under a context that can end
// needs a goroutine beside its caller anyway: one per burst instead of one per request, and a
// queued Acquire holds no goroutine but its caller's while it waits.

// callerTurns counts the times the loop readied a caller under a context that can end: a turn
// handed over (for tests: TestContendedWaiterReadiedOncePerAcquisition).
var callerTurns atomic.Int64

// phase names the burst to run: the first (begin), else the one after a wake (resume).
type phase struct {
	first   bool
	sess    *framework.Session // resume: the epoch of the listing the wait was decided on
	byWatch bool               // resume: the node ahead's deletion says that we hold
}

// burst runs the burst p and, under a context that can end, every burst after it until the
// grant or a failure (chain.go), on the framework's warm goroutines, and waits for the outcome
// under ctx: the caller is readied once per attempt. When ctx ends first it returns (zero,
// false) at once, even with a request on a silent connection; the chain then ends on its own
// (its inline requests see ctx's end between requests) and deletes the node it made. When ctx
// ends while the chain waits on a watch (no goroutine runs for it), the caller takes the wait
// back and returns ctx's error as the turn: the caller deletes the node (attempt).
// Under a context that cannot end, the burst runs on the caller's goroutine, and the caller
// waits on each watch itself (next).
func (c *contender) burst(ctx context.Context, p phase) (turn, bool) {
	if !c.offload {
		return c.run(ctx, p), true
	}
	if c.done == nil { // once per attempt
		c.done, c.ictx = make(chan struct{}, 1), framework.Inline(ctx)
		c.offload1 = c.offloaded
	}
	c.ph, c.running = p, true // read by offloaded: the burst starts after this write
	c.lock.fw.Go(c.offload1)
	select {
	case <-c.done:
		callerTurns.Add(1)
		return c.takeResult(), true
	case <-ctx.Done():
	}
	return c.leave(ctx)
}

// leave is burst once the caller's ctx has ended: the outcome if it came meanwhile; else the
// caller leaves, and the chain, if a burst of it runs, ends without handing anything over; if
// it waits on a watch, the caller takes the wait back (nothing runs for the contender any more).
func (c *contender) leave(ctx context.Context) (turn, bool) {
	c.mu.Lock()
	select {
	case <-c.done: // it finished meanwhile: its result is ours
		c.mu.Unlock()
		callerTurns.Add(1)
		return c.takeResult(), true
	default:
	}
	c.left = true
	running, stopW, stopC := c.running, c.stopW, c.stopC
	c.parked, c.stopW, c.stopC = turn{}, nil, nil
	c.mu.Unlock()
	if running {
		return turn{}, false
	}
	c.disarm(stopW, stopC)
	return turn{err: ctx.Err()}, true
}

// takeResult takes the turn handOver left for the caller; the receive from c.done that
// precedes it orders the write before this read.
func (c *contender) takeResult() turn {
	t := c.result
	c.result = turn{}
	return t
}

// run runs the burst p on this goroutine.
func (c *contender) run(ctx context.Context, p phase) turn {
	if p.first {
		return c.begin(ctx)
	}
	return c.resume(ctx, p.sess, p.byWatch)
}

// turn is where one burst of the loop stopped: a grant (held), a failure (err), or a watch for
// the caller to wait on (w).
type turn struct {
	held    bool             // we hold: from a listing, or from the node ahead's deletion (byWatch)
	byWatch bool             // the deletion proves it only while our node stands (settle checks)
	own     *framework.Watch // the data watch on our node the own-node check set, if any
	arm     *ownArm          // else, on a grant, what sets it once the grant is handed over
	err     error

	w         *framework.Watch   // the watch to wait on, when not held
	changed   context.Context    // the driver's input: its change also ends the wait (nil: none)
	sess      *framework.Session // the epoch of the listing decided on (of the grant, when held)
	goneHolds bool               // the watched node's deletion means that we hold
	dir       *listedDir         // a sticky lock's grant on the create's listing: that listing and its watch
}

// begin is the first burst: create our node, list behind it, decide, and watch the node ahead.
func (c *contender) begin(ctx context.Context) turn {
	cl, err := c.lock.createAndList(ctx, c.drv)
	if cl.Path == "" {
		return turn{err: err}
	}
	c.path, c.name, c.createdBy = cl.Path, path.Base(cl.Path), cl.Session.ID()
	// Only the token needs the listing's parent stat: derive it now, so that no reference to the
	// listing (~50 bytes per contender) outlives the first decision while this waiter waits.
	c.tok = tokenFor(c.lock.fw, cl.Path, c.drv.Node().Fixed == "", cl.Parent)
	return c.listedGrant(c.advance(ctx, cl.Session, cl.Children, err), cl)
}

// next waits, on the caller's goroutine, for the watch t left, and runs the burst that follows
// the wake, under a context that cannot end (under one that can, the chain does: chain.go).
func (c *contender) next(ctx context.Context, t turn) turn {
	ev, err := waitWatch(ctx, t.w, t.changed)
	if c.offload {
		callerTurns.Add(1)
	}
	if err = ignoreInterrupt(err); err != nil {
		return turn{err: err}
	}
	byWatch := t.goneHolds && ev.Type == framework.EventNodeDeleted
	r, ok := c.burst(ctx, phase{sess: t.sess, byWatch: byWatch})
	if !ok {
		return turn{err: ctx.Err()}
	}
	return r
}

// resume is the burst after a wake: the own-node check when the node ahead's deletion says that
// we hold (byWatch), else the listing, the decision and the next watch.
func (c *contender) resume(ctx context.Context, sess *framework.Session, byWatch bool) turn {
	if t, done := c.settle(ctx, sess, turn{held: byWatch, byWatch: byWatch}); done {
		return t
	}
	sess = c.lock.fw.Session()
	children, err := c.lock.list(ctx)
	return c.advance(ctx, sess, children, err)
}
