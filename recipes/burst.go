package recipes

import (
	"context"
	"path"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The acquire loop is cut at its waits (issue 27). Each burst of requests that depend on each
// other (the listing behind the create, the decision and the watch on the node ahead; after a
// wake, the own-node check or the re-listing and the next watch) runs on ONE goroutine, its
// requests inline, and the wait on the watch runs on the caller's goroutine. go-zookeeper has no
// call that a context can end, so a request under a context that can end needs a goroutine
// beside its caller anyway: one per burst instead of one per request, and a queued Acquire
// holds no goroutine but its caller's while it waits.

// phase names the burst to run: the first (begin), else the one after a wake (resume).
type phase struct {
	first   bool
	sess    *framework.Session // resume: the epoch of the listing the wait was decided on
	byWatch bool               // resume: the node ahead's deletion says that we hold
}

// burst runs the burst p on a goroutine of its own, its requests inline (framework.Inline), and
// waits for it under ctx. When ctx ends first it returns (zero, false) at once, even with a
// request on a silent connection; the burst then ends on its own (its inline requests see ctx's
// end between requests), and a first burst deletes the node it made, which nobody else knows.
// Under a context that cannot end, the burst runs on the caller's goroutine.
func (c *contender) burst(ctx context.Context, p phase) (turn, bool) {
	if !c.offload {
		return c.run(ctx, p), true
	}
	if c.done == nil { // once per attempt: the bursts follow each other
		c.done, c.ictx = make(chan turn, 1), framework.Inline(ctx)
		c.offload1 = c.offloaded
	}
	c.ph = p // read by offloaded: the burst starts after this write
	c.lock.fw.Go(c.offload1)
	select {
	case t := <-c.done:
		return t, true
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case t := <-c.done: // it finished meanwhile: its result is ours
		return t, true
	default:
		c.left = true
		return turn{}, false
	}
}

// offloaded is burst's goroutine, a warm one of the Framework's (Framework.Go). Once it has handed a grant over, it sets the held lease's
// own-node watch when no own-node check did (ownarm.go).
func (c *contender) offloaded() {
	p := c.ph
	t := c.run(c.ictx, p)
	c.mu.Lock()
	left := c.left
	if !left {
		c.done <- t
	}
	c.mu.Unlock()
	switch {
	case left && p.first && c.path != "":
		c.lock.fw.DeleteInBackground(c.path)
	case !left && t.arm != nil:
		t.arm.run(c.lock.fw, c.path)
	}
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
	return c.advance(ctx, cl.Session, cl.Children, err)
}

// next waits, on the caller's goroutine, for the watch t left, and runs the burst that follows
// the wake. A ctx that ends in either returns at once.
func (c *contender) next(ctx context.Context, t turn) turn {
	ev, err := waitWatch(ctx, t.w, t.changed)
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
