package framework

import (
	"context"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sync"
)

// CreateListing is a create followed, on the same session, by a listing of the new node's parent.
type CreateListing struct {
	Path     string   // the created node, namespace-relative
	Session  *Session // the epoch whose session created it (it may have ended)
	Children []string // the parent's children; always contains Path's last segment when err == nil
	Parent   *Stat    // the parent's stat from that listing
	Watch    *Watch   // CreateAndListW's children watch on the parent, set with Children; nil from CreateAndList
}

// CreateAndList creates p (as Create does, honouring every CreateOption) and lists its parent,
// sending the listing right behind the create so that it normally costs no extra round trip: once
// go-zookeeper has written the create to the socket, the listing is queued behind it, and ZooKeeper
// answers one session's requests in order. If the listing overtook the create (a reconnect, a
// retried create), it lists again. On error, a non-empty Path means the node was created and the
// caller owns it (must delete it); with an error wrapping ErrNoNode it is gone already: its session
// expired before the listing was answered, or it or its parent was deleted. On ctx end the create
// may still happen, as with Create.
func (f *Framework) CreateAndList(ctx context.Context, p string, data []byte, opts ...CreateOption) (_ CreateListing, err error) {
	defer f.traceOp("createAndList", p, f.traceStart(), &err)
	return f.createAndList(ctx, p, data, opts, false)
}

// CreateAndListW is CreateAndList whose listing also sets a children watch on the parent, as
// ChildrenW does (shared with a live one of the same parent), returned in CreateListing.Watch: it
// fires on the first change of the parent's children after the listing returned in Children, so
// that a caller deciding on that listing (a lock contender that holds) learns of any later
// contender without a listing of its own. When the first listing overtook the create and the
// parent is listed again, the watch is that second listing's: a first one, if it set a watch, was
// answered before the create, which changed the children and so fired it. On error no watch is
// returned; one the listing set stays, as any ChildrenW's, until the parent's children change (the
// delete of a node the create made does), and later watching reads of the parent share it while it
// is live, so failures do not add up.
func (f *Framework) CreateAndListW(ctx context.Context, p string, data []byte, opts ...CreateOption) (_ CreateListing, err error) {
	defer f.traceOp("createAndListW", p, f.traceStart(), &err)
	return f.createAndList(ctx, p, data, opts, true)
}

// createAndList is CreateAndList, and CreateAndListW when watch is set.
func (f *Framework) createAndList(ctx context.Context, p string, data []byte, opts []CreateOption, watch bool) (CreateListing, error) {
	cc, data, err := f.prepareCreate(ctx, p, data, opts)
	if err != nil {
		return CreateListing{}, err
	}
	target := f.full(p) // the path the create request carries
	var pc *protectedCreate
	if cc.protected {
		pc = f.newProtectedCreate(p, data, &cc)
		target = pc.full
	}
	cw := f.sockets.awaitCreate(target)
	defer cw.stop()
	written := cw.written
	// The create runs on a goroutine of its own, its requests inline (the caller waits for it
	// under ctx, so a goroutine beside each of them would only add a hand-off). If ctx ends
	// first the caller abandons it, and the goroutine deletes a node it created afterwards.
	// What the two share is one object (issue 27: one allocation, not one per variable).
	h := &createHandoff{done: make(chan created, 1)}
	done := h.done
	f.Go(func() {
		var c created
		ictx := withInline(ctx)
		if pc != nil {
			c.p, c.sess, c.err = pc.run(ictx)
		} else {
			c.p, c.sess, c.err = f.createPlain(ictx, p, data, &cc)
		}
		if hk := f.createHooks.Load(); hk != nil && hk.created != nil {
			hk.created()
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.abandoned {
			if c.p != "" {
				f.DeleteInBackground(c.p)
			}
			return
		}
		h.done <- c
		if hk := f.createHooks.Load(); hk != nil && hk.delivered != nil {
			hk.delivered()
		}
	})
	var c created
	// Let the create's goroutine run first, when it can on this P: it queues its request, which
	// go-zookeeper's send loop writes, before this goroutine looks, so that it need not park on
	// written and be woken (a hand-off per acquisition, issue 27). Only a hint to the scheduler:
	// the select below still waits for the write.
	runtime.Gosched()
	select {
	case <-written:
	case c = <-done:
		done <- c // the create ended first (an error, or a reply faster than we looked)
	case <-ctx.Done():
	}
	parent := path.Dir(p)
	list := func() ([]string, *Stat, *Watch, error) {
		if watch {
			return f.ChildrenW(ctx, parent)
		}
		kids, stat, err := f.Children(ctx, parent)
		return kids, stat, nil, err
	}
	kids, stat, w, lerr := list()
	if h := f.createHooks.Load(); h != nil && h.collect != nil {
		h.collect(ctx)
	}
	if len(done) == 0 {
		// The create's reply came before the listing's, usually in the same read, and readied
		// its goroutine before this one: let it hand its result over rather than park here and
		// be woken by it (issue 27). Again only a hint.
		runtime.Gosched()
	}
	select {
	case c = <-done:
	case <-ctx.Done():
		h.mu.Lock()
		select {
		case c = <-done: // it finished meanwhile: its result is ours to return
		default:
			h.abandoned = true
		}
		abandoned := h.abandoned
		h.mu.Unlock()
		if abandoned {
			return CreateListing{}, fmt.Errorf("framework: create %s: %w (a node it makes is deleted)", p, ctx.Err())
		}
	}
	if c.err != nil {
		return CreateListing{}, c.err
	}
	if lerr != nil || !slices.Contains(kids, path.Base(c.p)) {
		f.relists.Add(1)
		kids, stat, w, lerr = list() // the watch, too, is this listing's
	}
	res := CreateListing{Path: c.p, Session: c.sess, Children: kids, Parent: stat, Watch: w}
	if lerr == nil && !slices.Contains(kids, path.Base(c.p)) {
		lerr = fmt.Errorf("framework: %s missing from its parent's listing right after its create: %w", c.p, ErrNoNode)
	}
	if lerr != nil {
		res.Children, res.Parent, res.Watch = nil, nil, nil
		return res, lerr
	}
	return res, nil
}

// created is the outcome of CreateAndList's create, handed from its goroutine to the caller.
type created struct {
	p    string
	sess *Session
	err  error
}

// createHandoff is what CreateAndList's caller and its create's goroutine share: the outcome's
// channel (buffered 1), and whether the caller left (its ctx ended), under mu.
type createHandoff struct {
	done      chan created
	mu        sync.Mutex
	abandoned bool
}

// createHooks pause CreateAndList in tests, to force each order of the hand-off between the
// create's goroutine and a caller whose ctx ends: created runs on the goroutine once the create
// has ended, before the hand-off; delivered once it has handed its result over; collect on the
// caller, right before it waits for that result (CreateSetAndList's too). replied runs right
// after a successful reply to a create or a set's transaction, before its epoch is known.
type createHooks struct {
	created, delivered, replied func()
	collect                     func(ctx context.Context)
}

// replyHook runs the replied hook, if a test set one, after a successful reply.
func (f *Framework) replyHook(err error) {
	if h := f.createHooks.Load(); err == nil && h != nil && h.replied != nil {
		h.replied()
	}
}
