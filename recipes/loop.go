package recipes

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// grant is what a successful acquire yields.
type grant struct {
	path    string             // our node, namespace-relative
	session *framework.Session // the epoch of the listing that granted; it created our node
	token   *token             // czxid of our node: the fencing token
	own     *framework.Watch   // a data watch on our node the loop set already, or nil
	slot    *slot              // the sticky slot the node is (sticky_cache.go), or nil
	local   bool               // granted from the slot, with no request: the slot watches the node
}

// acquire creates our node and waits until drv says we hold the lock. A vanished own node
// (session expiry, external delete) is retried with a fresh node under the framework's retry
// policy and the same deadline, as Curator does. On any failure our node is deleted.
func (l *Lock) acquire(ctx context.Context, drv driver.Driver, try bool) (grant, error) {
	var g grant
	err := retry.Do(ctx, l.fw.RetryPolicy(), classifyAttempt, func(ctx context.Context) error {
		var err error
		g, err = l.attempt(ctx, drv, try)
		return err
	})
	return g, err
}

// classifyAttempt retries an attempt only when our node vanished: every ZooKeeper call inside
// the attempt already ran under the retry policy.
func classifyAttempt(err error) retry.Class {
	if isMissing(err) {
		return retry.Retryable
	}
	return retry.Permanent
}

// attempt is one node's life: create it, wait, and delete it on failure.
func (l *Lock) attempt(ctx context.Context, drv driver.Driver, try bool) (grant, error) {
	cl, err := l.createAndList(ctx, drv)
	if cl.Path == "" {
		return grant{}, err
	}
	// Only the token needs the listing's parent stat: derive it now, so that no reference to the
	// listing (~50 bytes per contender) outlives the first decision while this waiter waits.
	tok := tokenFor(l.fw, cl.Path, drv.Node().Fixed == "", cl.Parent)
	c := &contender{lock: l, drv: drv, path: cl.Path, name: path.Base(cl.Path), createdBy: cl.Session.ID(), try: try}
	sess, children := cl.Session, cl.Children
	cl = framework.CreateListing{}
	g, err := c.wait(ctx, sess, children, err)
	if err != nil {
		return grant{}, l.busyOrForeign(ctx, c.path, err)
	}
	g.token = tok
	return g, nil
}

// contender is one node standing in the lock directory.
type contender struct {
	lock      *Lock
	drv       driver.Driver
	path      string // our node
	name      string // its last segment
	createdBy int64  // the session that created it
	try       bool
	queued    bool                // the queued event was reported
	self      selfHold            // the lease of this process that the last decision waits behind, if any
	ephemeral map[string]struct{} // children found ephemeral while waiting for the directory (foreigndir.go)
}

// wait decides on children, a listing taken in epoch sess, and waits and lists again until
// we hold the lock or fail. A grant needs the deciding listing's epoch to be live and to be
// the session that created our node: a listing or a wake-up that came in a later session
// proves nothing about a node of the old one.
func (c *contender) wait(ctx context.Context, sess *framework.Session, children []string, err error) (grant, error) {
	for {
		if err != nil {
			return grant{}, c.lock.probeDepth(ctx, c.name, err)
		}
		if err := c.lock.checkDepth(children); err != nil {
			return grant{}, err
		}
		held, byWatch, serr := c.step(ctx, sess, children)
		var own *framework.Watch
		if serr == nil && byWatch {
			// The deletion of the node ahead proves that we are first only while our own node
			// stands; an operator or a tool may have deleted it meanwhile, and the next contender
			// then passes it. One getData: the round trip of the listing it replaces, without the
			// children, and it sets the watch the held lease keeps on its node (ownwatch.go).
			own, serr = c.stands(ctx)
		}
		if serr != nil {
			return grant{}, serr
		}
		if held && sess.Err() == nil {
			if sess.ID() != c.createdBy {
				return grant{}, fmt.Errorf("%w: %s: created by session 0x%x, now 0x%x",
					driver.ErrOwnNodeMissing, c.path, c.createdBy, sess.ID())
			}
			return grant{path: c.path, session: sess, own: own}, nil
		}
		sess = c.lock.fw.Session()
		children, err = c.lock.list(ctx)
	}
}

// stands checks that our node still exists, and returns a data watch on it; a missing one is
// ErrOwnNodeMissing (queue again). A getData with a watch rather than an exists: it sets no
// watch on a missing node, and the held lease keeps the one it sets (see node.watchOwn).
func (c *contender) stands(ctx context.Context) (*framework.Watch, error) {
	_, _, w, err := c.lock.fw.GetW(ctx, c.path)
	switch {
	case errors.Is(err, framework.ErrNoNode):
		return nil, fmt.Errorf("%w: %s: deleted while it waited", driver.ErrOwnNodeMissing, c.path)
	case err != nil:
		return nil, err
	}
	return w, nil
}

// step decides on children, a listing taken in epoch sess, and, if we do not hold, waits once
// for what the driver names. It reports whether we hold: from the listing, or from the wait
// itself (byWatch: see waitFor; the caller still checks that our node stands).
func (c *contender) step(ctx context.Context, sess *framework.Session, children []string) (held, byWatch bool, err error) {
	input, changed, err := c.lock.input.current(ctx)
	if err != nil {
		return false, false, err
	}
	dec, err := c.evaluate(children, input)
	switch {
	case err != nil:
		return false, false, err
	case dec.Holds:
		return true, false, nil
	case c.try && dec.WatchDir:
		if err := c.foreignIn(ctx, children); err != nil {
			return false, false, err
		}
		return false, false, c.self.lockedError(c.lock.path)
	case c.try:
		le := c.self.lockedError(c.lock.path)
		if le.Held == "" {
			le.node = dec.WatchNode // busyOrForeign reads its stat: a squatter is a foreign node
		}
		return false, false, le
	case ctx.Err() != nil:
		return false, false, ctx.Err()
	}
	if !c.queued {
		c.queued = true
		c.lock.event(eventQueued, c.path, 0, nil)
		c.lock.warnSelf(c.self)
	}
	switch {
	case dec.WatchDir:
		held, err = c.waitDir(ctx, changed) // decided on the listing that came with the watch
		return held, false, err
	}
	held, err = c.waitFor(ctx, sess, dec, changed)
	return held, held, err
}

// evaluate asks the driver about children, and refuses a grant (or a grant on the watched
// node's deletion) that would jump the queue: see driver.CheckGrant. A decision to wait notes
// in c.self the lease of this process, if any, that it waits behind.
func (c *contender) evaluate(children []string, input []byte) (driver.Decision, error) {
	dec, v, err := driver.Evaluate(c.drv, children, c.name, input)
	switch {
	case err != nil:
		return dec, fmt.Errorf("%w: %s", err, c.path)
	case dec.Err != nil:
		if ferr := c.lock.foreignError(dec.Err); ferr != nil {
			return dec, ferr
		}
		return dec, fmt.Errorf("%s: %w", c.path, dec.Err)
	case dec.Holds || dec.GoneHolds:
		if err := driver.CheckGrant(v); err != nil {
			return dec, c.lock.orderError(err)
		}
	}
	if !dec.Holds {
		c.self = c.lock.selfHoldIn(v, dec)
	}
	return dec, nil
}

// ours reports whether name is a node of a lease of l that still stands.
func (l *Lock) ours(name string) bool {
	if name == "" {
		return false
	}
	_, ok := l.mine.Load(name)
	return ok
}

// waitFor watches the one node the decision names and waits for it. It reports true when the
// watch itself proves that we hold: the driver said its deletion does (GoneHolds), and it is
// gone. The caller still checks that the session did not change meanwhile. A node ahead that is
// not ephemeral (its stat comes with the watch) is a squatter: a ForeignNodeError.
//
// The decision was made on a listing taken in epoch sess (nil: not checked). A watch set once
// sess has ended is not waited on: the read may have been retried in a later session, in which
// our node may be gone with the old one (an expiry), while the node ahead, still there, would
// hold the nodeless waiter until it goes. The caller lists again instead. While sess is live
// the watch was set in it, and the end of sess wakes the wait.
func (c *contender) waitFor(ctx context.Context, sess *framework.Session, dec driver.Decision, changed context.Context) (bool, error) {
	_, st, w, err := c.lock.fw.GetW(ctx, childPath(c.lock.path, dec.WatchNode))
	if errors.Is(err, framework.ErrNoNode) {
		return dec.GoneHolds, nil
	}
	if err != nil {
		return false, err
	}
	if err := c.lock.squatter(dec.WatchNode, st); err != nil {
		return false, err // its watch stays until the node changes: go-zookeeper cannot remove it
	}
	if sess != nil && sess.Err() != nil {
		return false, nil
	}
	ev, err := waitWatch(ctx, w, changed)
	if err != nil {
		return false, ignoreInterrupt(err)
	}
	return dec.GoneHolds && ev.Type == framework.EventNodeDeleted, nil
}

// waitDir watches the directory's children. The listing that comes with the watch is decided
// on first: a change between our last listing and the watch would otherwise never wake us. A
// directory that is gone (a reaped container) means our node is gone too.
func (c *contender) waitDir(ctx context.Context, changed context.Context) (bool, error) {
	kids, _, w, err := c.lock.fw.ChildrenW(ctx, c.lock.path)
	if errors.Is(err, framework.ErrNoNode) {
		return false, fmt.Errorf("%w: %s: the directory is gone", driver.ErrOwnNodeMissing, c.path)
	}
	if err != nil {
		return false, err
	}
	input, _, err := c.lock.input.current(ctx)
	if err != nil {
		return false, err
	}
	now, err := c.evaluate(kids, input)
	switch {
	case err != nil:
		return false, err
	case now.Holds:
		return true, nil
	}
	if err := c.foreignIn(ctx, kids); err != nil {
		return false, err // the children watch stays until the directory changes, as in waitFor
	}
	_, err = waitWatch(ctx, w, changed)
	return false, ignoreInterrupt(err)
}

// waitWatch waits for w like w.Wait, and also returns (a zero event, nil) as soon as changed,
// when not nil, ends: the driver's input changed. context.AfterFunc wires it, so no goroutine
// waits beside the watch.
func waitWatch(ctx context.Context, w *framework.Watch, changed context.Context) (framework.Event, error) {
	if changed == nil {
		return w.Wait(ctx)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(changed, cancel)
	defer stop()
	ev, err := w.Wait(wctx)
	if err != nil && ctx.Err() == nil && changed.Err() != nil {
		return framework.Event{}, nil
	}
	return ev, err
}

// ignoreInterrupt turns a session interruption into a plain wake: the loop lists again once
// the framework has a connection.
func ignoreInterrupt(err error) error {
	if errors.Is(err, framework.ErrSessionInterrupted) {
		return nil
	}
	return err
}

// list reads the contenders without a watch; a missing directory (a reaped container) is an
// empty listing, which the driver reports as our node missing.
func (l *Lock) list(ctx context.Context) ([]string, error) {
	children, _, err := l.fw.Children(ctx, l.path)
	if errors.Is(err, framework.ErrNoNode) {
		children, err = nil, nil
	}
	if h := listHook.Load(); h != nil && err == nil {
		children = (*h)(l, children)
	}
	return children, err
}

// listHook, set only by tests, rewrites the listings of list: a test shows a node that a
// lagging server would still show.
var listHook atomic.Pointer[func(l *Lock, children []string) []string]

// abandon deletes a node we no longer want, as a cleanup (see cleanupContext): on the caller's
// goroutine while its ctx is live and the framework connected, else, and for whatever is not
// done in time, as a guaranteed delete in the background.
func (l *Lock) abandon(ctx context.Context, p string) {
	dctx, cancel := cleanupContext(ctx, l.fw)
	defer cancel()
	if dctx.Err() != nil {
		l.fw.DeleteInBackground(p)
		return
	}
	if err := l.fw.Delete(dctx, p, framework.Guaranteed()); err != nil && !errors.Is(err, framework.ErrNoNode) {
		l.fw.Logger().Debug("recipes: cleanup delete continues in the background", "path", p, "err", err)
	}
}

// childPath is path.Join(dir, name) for a validated lock directory and a single-segment name,
// without path.Join's cleaning allocation (two of them on every acquisition).
func childPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// createAndList creates our contender node (protected, ephemeral, parents as containers) and
// lists the directory right behind the create, in one round trip (framework.CreateAndList).
func (l *Lock) createAndList(ctx context.Context, drv driver.Driver) (framework.CreateListing, error) {
	spec := drv.Node()
	name := childPath(l.path, drv.LockName()+spec.Fixed)
	mode := framework.EphemeralSequential
	if spec.Fixed != "" {
		mode = framework.Ephemeral
	}
	data := spec.Data
	if data == nil {
		data = l.nodeData()
	}
	cl, err := l.fw.CreateAndList(ctx, name, data, framework.WithMode(mode), framework.Protected(), framework.CreatingParents())
	return cl, ownNodeGone(cl.Path, err)
}

// ownNodeGone marks a CreateAndList failure that says our node, created, is gone already
// (ErrNoNode with the node's path: the listing behind the create came in a later session
// after an expiry, or after a delete, or the directory was reaped) as our node missing, which
// the loop retries with a fresh node, as it does when a later listing misses it.
func ownNodeGone(created string, err error) error {
	if created != "" && errors.Is(err, framework.ErrNoNode) && !isMissing(err) {
		return fmt.Errorf("%w: %w", driver.ErrOwnNodeMissing, err)
	}
	return err
}

// nodeData is the data of our nodes: WithNodeData's, else the framework's default data when it
// has some (framework.WithDefaultData: nil here), else this process's Identity. NewLock settles
// which, once.
func (l *Lock) nodeData() []byte { return l.opts.data }

// processIdentity is NewIdentity("").Encode(), computed once.
var processIdentity = sync.OnceValue(func() []byte { return NewIdentity("").Encode() })

// orderError explains a grant that CheckGrant refused: when the node we would overtake belongs
// to a recipe other than ours (from its name), ErrMixedRecipes names that recipe; when its name
// is no recipe's at all (zzz0000000000), it is a foreign node.
func (l *Lock) orderError(err error) error {
	var oe *driver.OrderError
	if errors.As(err, &oe) {
		theirs, ours := RecipeOf(oe.Earlier), RecipeOf(oe.Ours)
		if theirs == KindUnknown && ours != KindUnknown {
			return &ForeignNodeError{Path: childPath(l.path, oe.Earlier),
				Reason: "its name ends in a sequence but carries no lock name a recipe uses, so no contender made it"}
		}
		if theirs != ours {
			return fmt.Errorf("%w: %s holds %s node %s, and this %s would overtake it: %w",
				ErrMixedRecipes, l.path, theirs, oe.Earlier, ours, err)
		}
	}
	return fmt.Errorf("%s: %w", l.path, err)
}
