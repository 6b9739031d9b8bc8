package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// cleanupTimeout bounds the delete of an abandoned node. It runs on a fresh
// context because the caller's may already be cancelled; a delete that fails
// with a retryable error is then finished in the background by the
// framework's guaranteed delete.
const cleanupTimeout = 10 * time.Second

// contender is one way of standing in one lock directory: the directory, the
// driver that decides, and how our node is created. Every lock recipe
// acquires through contender.acquire; none has a loop of its own.
type contender struct {
	fw   *framework.Framework
	dir  string
	drv  driver.Driver
	data []byte // nil: the framework's default data
	// fixedSeq, when set, makes the node "<lockName><fixedSeq>", plain
	// ephemeral: a downgraded read lock takes its writer's sequence.
	fixedSeq string
	// shortcut allows handoff without a re-list: safe when every contender
	// creates sequential nodes, so nothing new can sort before us.
	shortcut bool
	// tryOnly makes a busy lock an ErrLocked failure instead of a wait.
	tryOnly bool
	// refresh, when set, runs before each evaluation and returns the driver
	// to decide with (replacing drv) and a watch, or nil, whose firing also
	// wakes the wait: a semaphore whose maximum lives in a shared count node.
	refresh func(ctx context.Context) (driver.Driver, *framework.Watch, error)
}

// grant is what a successful acquire yields.
type grant struct {
	path    string // our node, namespace-relative
	token   *token // czxid of our node: the fencing token
	session *framework.Session
}

// acquire creates our node and waits until the driver says we hold the lock.
// A vanished own node (session expiry, external delete) is retried with a
// fresh node under the framework's retry policy and the same deadline, as
// Curator does. On any failure our node is deleted before returning.
func (c *contender) acquire(ctx context.Context) (grant, error) {
	var g grant
	err := retry.Do(ctx, c.fw.RetryPolicy(), classifyAttempt, func(ctx context.Context) error {
		var err error
		g, err = c.attempt(ctx)
		return err
	})
	return g, err
}

// classifyAttempt retries an attempt only when our node vanished: every
// ZooKeeper call inside the attempt already ran under the retry policy.
func classifyAttempt(err error) retry.Class {
	if errors.Is(err, driver.ErrOwnNodeMissing) {
		return retry.Retryable
	}
	return retry.Permanent
}

// attempt is one node's life: create it, wait, and delete it on failure.
func (c *contender) attempt(ctx context.Context) (grant, error) {
	sess := c.fw.Session()
	p, children, parent, err := c.createAndList(ctx)
	if p == "" {
		return grant{}, err
	}
	tok := tokenFor(c.fw, p, parent)
	g, err := c.wait(ctx, p, sess, children, err)
	if err != nil {
		c.abandon(ctx, p)
		return grant{}, err
	}
	g.token = tok
	return g, nil
}

// createAndList sends the create and, right behind it on the same session,
// the listing. ZooKeeper answers one session's requests in order, so the
// listing normally contains our node already and the acquire costs one
// serial round trip less than create-then-list. If the listing overtook the
// create on the way to the connection, list again. p is empty only when the
// create failed.
func (c *contender) createAndList(ctx context.Context) (p string, children []string, parent *framework.Stat, err error) {
	type created struct {
		p   string
		err error
	}
	ch := make(chan created, 1)
	sent := c.fw.RequestsStarted()
	go func() {
		p, err := c.create(ctx)
		ch <- created{p, err}
	}()
	// Let the create reach the connection's queue first: wait (briefly, by
	// yielding) until the framework has issued it, then yield once more for
	// go-zookeeper to queue it.
	for i := 0; i < 64 && c.fw.RequestsStarted() == sent; i++ {
		runtime.Gosched()
	}
	runtime.Gosched()
	children, parent, lerr := c.list(ctx)
	r := <-ch
	if r.err != nil {
		return "", nil, nil, r.err
	}
	if lerr != nil || !slices.Contains(children, path.Base(r.p)) {
		children, parent, lerr = c.list(ctx)
	}
	return r.p, children, parent, lerr
}

// create makes our contender node: protected, ephemeral, parents as
// containers.
func (c *contender) create(ctx context.Context) (string, error) {
	name := path.Join(c.dir, c.drv.LockName())
	mode := framework.EphemeralSequential
	if c.fixedSeq != "" {
		name += c.fixedSeq
		mode = framework.Ephemeral
	}
	return c.fw.Create(ctx, name, c.data,
		framework.WithMode(mode), framework.Protected(), framework.CreatingParents())
}

// abandon deletes a node we no longer want, on a fresh bounded context.
func (c *contender) abandon(ctx context.Context, p string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := c.fw.Delete(cctx, p, framework.Guaranteed()); err != nil && !errors.Is(err, framework.ErrNoNode) {
		c.fw.Logger().Warn("recipes: cleanup delete failed; retrying in background",
			"path", p, "err", err)
	}
}

// wait decides on children, the listing taken in session epoch sess, and
// waits and lists again until we hold the lock or fail. A grant is valid only
// if the epoch that produced the deciding listing is still live.
func (c *contender) wait(ctx context.Context, p string, sess *framework.Session, children []string, err error) (grant, error) {
	node := path.Base(p)
	for {
		if err != nil {
			return grant{}, err
		}
		drv, extra, derr := c.decider(ctx)
		if derr != nil {
			return grant{}, derr
		}
		dec, sorted, _, eerr := driver.Evaluate(drv, children, node)
		if eerr != nil {
			return grant{}, fmt.Errorf("%w: %s", eerr, p)
		}
		held := dec.Holds
		if !held {
			if c.tryOnly {
				return grant{}, fmt.Errorf("%w: %s", ErrLocked, c.dir)
			}
			if held, err = c.waitFor(ctx, drv, node, dec, sorted, extra); err != nil {
				return grant{}, err
			}
		}
		if held && sess.Err() == nil {
			return grant{path: p, session: sess}, nil
		}
		sess = c.fw.Session()
		children, _, err = c.list(ctx)
	}
}

// list reads the contenders without a watch; a missing directory (a reaped
// container) is an empty listing, which the driver reports as our node
// missing.
func (c *contender) list(ctx context.Context) ([]string, *framework.Stat, error) {
	children, st, err := c.fw.Children(ctx, c.dir)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil, nil
	}
	return children, st, err
}

// waitFor sets the one watch the decision asks for and waits for it. It
// reports true when the watch itself proves that we hold the lock: the node
// we watched was first in the listing and is now gone (no node created later
// can sort before ours), or the listing that came with a directory watch
// grants it.
func (c *contender) waitFor(ctx context.Context, drv driver.Driver, node string, dec driver.Decision, sorted []string, extra *framework.Watch) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if dec.WatchDir {
		return c.waitDir(ctx, drv, node, extra)
	}
	first := c.shortcut && len(sorted) > 0 && dec.WatchNode == sorted[0]
	_, _, w, err := c.fw.GetW(ctx, path.Join(c.dir, dec.WatchNode))
	if errors.Is(err, framework.ErrNoNode) {
		return first, nil
	}
	if err != nil {
		return false, err
	}
	ev, err := waitEither(ctx, w, extra)
	if err != nil {
		return false, ignoreInterrupt(err)
	}
	return first && ev.Type == framework.EventNodeDeleted, nil
}

// waitDir watches the directory's children. The listing that comes with the
// watch is decided on first: a change between our last listing and the watch
// would otherwise never wake us.
func (c *contender) waitDir(ctx context.Context, drv driver.Driver, node string, extra *framework.Watch) (bool, error) {
	kids, _, w, err := c.fw.ChildrenW(ctx, c.dir)
	if err != nil {
		return false, err
	}
	now, _, _, err := driver.Evaluate(drv, kids, node)
	if err != nil {
		return false, fmt.Errorf("%w: %s/%s", err, c.dir, node)
	}
	if now.Holds {
		return true, nil
	}
	_, err = waitEither(ctx, w, extra)
	return false, ignoreInterrupt(err)
}

// ignoreInterrupt turns a session interruption into a plain wake: the loop
// lists again once the framework has a connection.
func ignoreInterrupt(err error) error {
	if errors.Is(err, framework.ErrSessionInterrupted) {
		return nil
	}
	return err
}

// decider returns the driver for the next evaluation and the extra watch to
// wake on: drv and none, unless refresh is set.
func (c *contender) decider(ctx context.Context) (driver.Driver, *framework.Watch, error) {
	if c.refresh == nil {
		return c.drv, nil, nil
	}
	return c.refresh(ctx)
}

// waitEither waits for w like w.Wait, and also returns (a zero event, nil)
// as soon as extra, when not nil, fires.
func waitEither(ctx context.Context, w, extra *framework.Watch) (framework.Event, error) {
	if extra == nil {
		return w.Wait(ctx)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-extra.Events():
		case <-wctx.Done():
		}
		cancel()
	}()
	ev, err := w.Wait(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return framework.Event{}, nil // woken by extra
	}
	return ev, err
}
