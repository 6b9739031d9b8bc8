package recipes

import (
	"context"
	"errors"
	"fmt"
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
	arm     *ownArm            // sets the own-node watch on the burst that granted (ownarm.go), or nil
	queued  bool               // the acquire waited behind another node before this grant (a visit, for a sticky lock)
	visit   bool               // a sticky lock's queued grant that is not cached: its release deletes in the background
	dir     *listedDir         // a sticky lock's grant on its create's listing: that listing and its watch (sticky_listed.go)
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

// attempt is one node's life: create it, wait, and delete it on failure. The loop runs in
// bursts (burst.go): the create, the listing behind it and the watch on the node ahead on one
// goroutine; after each wake, the next burst. Under a context that can end the bursts follow
// each other without the caller (chain.go), which gets the grant or the failure; under one that
// cannot, the caller runs them and waits on each watch (next).
func (l *Lock) attempt(ctx context.Context, drv driver.Driver, try bool) (grant, error) {
	c := &contender{lock: l, drv: drv, try: try, offload: ctx.Done() != nil, prearm: true}
	t, ok := c.burst(ctx, phase{first: true})
	if !ok {
		return grant{}, fmt.Errorf("recipes: %w (a node it made is deleted)", ctx.Err())
	}
	if c.path == "" {
		return grant{}, t.err
	}
	for t.err == nil && !t.held {
		t = c.next(ctx, t)
	}
	if t.err != nil {
		return grant{}, l.busyOrForeign(ctx, c.path, t.err)
	}
	g := grant{path: c.path, session: t.sess, own: t.own, token: c.tok, arm: t.arm, queued: c.queued, dir: t.dir}
	return g, nil
}

// contender is one node standing in the lock directory. The bursts set its fields one after
// another (each hands over to the caller before the next starts).
type contender struct {
	lock      *Lock
	drv       driver.Driver
	path      string // our node
	name      string // its last segment
	createdBy int64  // the session that created it
	tok       *token // czxid of our node: the fencing token
	try       bool
	offload   bool                  // the bursts run on goroutines of their own (burst.go)
	ictx      context.Context       // the attempt's ctx, marked inline, for them
	ph        phase                 // the burst to run next on one of them
	offload1  func()                // offloaded, bound once per attempt
	fire1     func(framework.Event) // fire, bound once per attempt that waits (c.mu guards)
	woken1    func()                // woken, likewise
	wakeT     turn                  // the wait whose news woken handles (chain.go)
	wakeEv    framework.Event       // the event that news came with
	mu        sync.Mutex            // guards the hand-over of their turns:
	left      bool                  // the caller left (its ctx ended)
	done      chan struct{}         // a burst's turn is in result, for the caller (buffered 1)
	result    turn                  // written by handOver before its send on done
	running   bool                  // a burst of the chain runs (else it waits on parked)
	parked    turn                  // the wait the chain is parked on, with its wake-ups:
	stopW     *framework.WatchHook  // the watch's OnFire registration
	stopC     func() bool           // the driver's change's (context.AfterFunc), or nil
	queued    bool                  // the queued event was reported
	self      selfHold              // the lease of this process that the last decision waits behind, if any
	prearm    bool                  // watch our node before a wait that ends in a grant (prearm.go): the single-lock loop
	ownW      *framework.Watch      // that watch, or nil
	ephemeral map[string]struct{}   // children found ephemeral while waiting for the directory (foreigndir.go)
}

// advance decides on children, a listing taken in epoch sess, and lists again until we hold,
// fail, or have a watch to wait on. A grant needs the deciding listing's epoch to be live and to
// be the session that created our node: a listing or a wake-up that came in a later session
// proves nothing about a node of the old one.
func (c *contender) advance(ctx context.Context, sess *framework.Session, children []string, err error) turn {
	for {
		if err != nil {
			return turn{err: c.lock.probeDepth(ctx, c.name, err)}
		}
		if err := c.lock.checkDepth(children); err != nil {
			return turn{err: err}
		}
		if t, done := c.settle(ctx, sess, c.step(ctx, sess, children)); done {
			return t
		}
		sess = c.lock.fw.Session()
		children, err = c.lock.list(ctx)
	}
}

// settle finishes a decision t made on a listing of epoch sess: a failure or a watch to wait on
// is done; a grant is done once its epoch is live and created our node; otherwise (done false)
// the loop lists again.
func (c *contender) settle(ctx context.Context, sess *framework.Session, t turn) (_ turn, done bool) {
	if t.err == nil && t.byWatch {
		// The deletion of the node ahead proves that we are first only while our own node
		// stands; an operator or a tool may have deleted it meanwhile, and the next contender
		// then passes it. The watch preArm set on our node says so with no request when it is
		// still quiet and in order; else one getData: the round trip of the listing it
		// replaces, without the children, and it sets the watch the held lease keeps on its
		// node (ownwatch.go).
		if t.own = c.preArmed(); t.own == nil {
			t.own, t.err = c.stands(ctx)
		}
	}
	switch {
	case t.err != nil || t.w != nil:
		return t, true
	case !t.held || sess.Err() != nil:
		return turn{}, false
	case sess.ID() != c.createdBy:
		return turn{err: fmt.Errorf("%w: %s: created by session 0x%x, now 0x%x",
			driver.ErrOwnNodeMissing, c.path, c.createdBy, sess.ID())}, true
	}
	g := turn{held: true, sess: sess, own: t.own}
	if g.own == nil && c.lock.sticky == nil && c.ownW != nil && !c.ownW.HasNews() {
		g.own = c.ownW // a grant on a listing: the watch preArm set is the lease's (ownwatch.go)
	}
	if g.own == nil && c.offload && c.lock.sticky == nil { // a sticky slot watches its directory instead
		g.arm = newOwnArm()
	}
	return g, true
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

// step decides on children, a listing taken in epoch sess, and, if we do not hold, sets the
// watch the driver names, for the caller to wait on. It reports whether we hold: from the
// listing, or from the watch itself (byWatch: see watchAhead; settle checks that our node
// stands); neither and no watch means list again.
func (c *contender) step(ctx context.Context, sess *framework.Session, children []string) turn {
	input, changed, err := c.lock.input.current(ctx)
	if err != nil {
		return turn{err: err}
	}
	dec, err := c.evaluate(children, input)
	switch {
	case err != nil:
		return turn{err: err}
	case dec.Holds:
		return turn{held: true}
	case c.try && dec.WatchDir:
		if err := c.foreignIn(ctx, children); err != nil {
			return turn{err: err}
		}
		return turn{err: c.self.lockedError(c.lock.path)}
	case c.try:
		le := c.self.lockedError(c.lock.path)
		if le.Held == "" {
			le.node = dec.WatchNode // busyOrForeign reads its stat: a squatter is a foreign node
		}
		return turn{err: le}
	case ctx.Err() != nil:
		return turn{err: ctx.Err()}
	}
	if !c.queued {
		c.queued = true
		c.lock.event(eventQueued, c.path, 0, nil)
		c.lock.warnSelf(c.self)
	}
	if dec.WatchDir {
		return c.watchDir(ctx, sess, changed) // decided on the listing that came with the watch
	}
	return c.watchAhead(ctx, sess, dec, changed)
}

// evaluate asks the driver about children, and refuses a grant (or a grant on the watched
// node's deletion) that would jump the queue: see driver.CheckGrant. A decision to wait notes
// in c.self the lease of this process, if any, that it waits behind. Only a read-write lock
// whose other half holds here needs the sorted view for that (selfHoldIn); every other
// decision is driver.Choose's, which selects the node ahead without sorting the directory.
func (c *contender) evaluate(children []string, input []byte) (driver.Decision, error) {
	var dec driver.Decision
	var grantErr, err error
	v := driver.View{Index: -1}
	if k := c.lock.kin; k != nil && k.held.Load() > 0 {
		dec, v, err = driver.Evaluate(c.drv, children, c.name, input)
		if err == nil && dec.Err == nil && (dec.Holds || dec.GoneHolds) {
			grantErr = driver.CheckGrant(v)
		}
	} else {
		dec, grantErr, err = driver.Choose(c.drv, children, c.name, input)
	}
	switch {
	case err != nil:
		return dec, fmt.Errorf("%w: %s", err, c.path)
	case dec.Err != nil:
		if ferr := c.lock.foreignError(dec.Err); ferr != nil {
			return dec, ferr
		}
		return dec, fmt.Errorf("%s: %w", c.path, dec.Err)
	case grantErr != nil:
		return dec, c.lock.orderError(grantErr)
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
	return l.mine.has(name)
}

// watchAhead watches the one node the decision names, for the caller to wait on. When the node
// is gone already and the driver said its deletion means that we hold (GoneHolds), we hold
// (byWatch). A node ahead that is not ephemeral (its stat comes with the watch) is a squatter: a
// ForeignNodeError.
//
// The decision was made on a listing taken in epoch sess (nil: not checked). A watch set once
// sess has ended is not waited on: the read may have been retried in a later session, in which
// our node may be gone with the old one (an expiry), while the node ahead, still there, would
// hold the nodeless waiter until it goes. The loop lists again instead. While sess is live the
// watch was set in it, and the end of sess wakes the wait.
func (c *contender) watchAhead(ctx context.Context, sess *framework.Session, dec driver.Decision, changed context.Context) turn {
	if dec.GoneHolds && c.prearm {
		if err := c.preArm(ctx); err != nil {
			return turn{err: err}
		}
	}
	_, st, w, err := c.lock.fw.GetW(ctx, childPath(c.lock.path, dec.WatchNode))
	if errors.Is(err, framework.ErrNoNode) {
		return turn{held: dec.GoneHolds, byWatch: dec.GoneHolds}
	}
	if err != nil {
		return turn{err: err}
	}
	if err := c.lock.squatter(dec.WatchNode, st); err != nil {
		return turn{err: err} // its watch stays until the node changes: go-zookeeper cannot remove it
	}
	if sess != nil && sess.Err() != nil {
		return turn{}
	}
	return turn{w: w, changed: changed, sess: sess, goneHolds: dec.GoneHolds}
}

// watchDir watches the directory's children, for the caller to wait on. The listing that comes
// with the watch is decided on first: a change between our last listing and the watch would
// otherwise never wake us. A directory that is gone (a reaped container) means our node is gone
// too.
func (c *contender) watchDir(ctx context.Context, sess *framework.Session, changed context.Context) turn {
	kids, _, w, err := c.lock.fw.ChildrenW(ctx, c.lock.path)
	if errors.Is(err, framework.ErrNoNode) {
		return turn{err: fmt.Errorf("%w: %s: the directory is gone", driver.ErrOwnNodeMissing, c.path)}
	}
	if err != nil {
		return turn{err: err}
	}
	input, _, err := c.lock.input.current(ctx)
	if err != nil {
		return turn{err: err}
	}
	now, err := c.evaluate(kids, input)
	switch {
	case err != nil:
		return turn{err: err}
	case now.Holds:
		return turn{held: true}
	}
	if err := c.foreignIn(ctx, kids); err != nil {
		return turn{err: err} // the children watch stays until the directory changes, as in watchAhead
	}
	return turn{w: w, changed: changed, sess: sess}
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
// lists the directory right behind the create, in one round trip (framework.CreateAndList); for
// a sticky lock likely to be granted on that listing, with the watch its slot keeps
// (CreateAndListW, stickyCache.listWatch).
func (l *Lock) createAndList(ctx context.Context, drv driver.Driver) (framework.CreateListing, error) {
	spec := drv.Node()
	opts := sequentialCreate
	var name string
	if spec.Fixed != "" {
		name, opts = childPath(l.path, drv.LockName()+spec.Fixed), fixedCreate
	} else {
		name = l.createName(drv.LockName())
	}
	data := spec.Data
	if data == nil {
		data = l.nodeData()
	}
	create := l.fw.CreateAndList
	if l.sticky.listWatch(drv) {
		create = l.fw.CreateAndListW
	}
	cl, err := create(ctx, name, data, opts...)
	return cl, ownNodeGone(cl.Path, err)
}

// The options of our creates, made once (the framework reads them and keeps none): a protected
// ephemeral node, sequential unless the driver names it, parents as containers.
var (
	sequentialCreate = []framework.CreateOption{framework.WithMode(framework.EphemeralSequential),
		framework.Protected(), framework.CreatingParents()}
	fixedCreate = []framework.CreateOption{framework.WithMode(framework.Ephemeral),
		framework.Protected(), framework.CreatingParents()}
)

// createName is the path our sequential node is created under for a driver whose lock name is
// lockName: the lock's own driver's is made once (NewLock), any other's (a downgrade's) each time.
func (l *Lock) createName(lockName string) string {
	if lockName == l.ownName { // NewLock made ownPath
		return l.ownPath
	}
	return childPath(l.path, lockName)
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
