package recipes

import (
	"errors"
	"path"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A held node keeps one data watch on itself, so that its holder learns within one
// notification that someone else deleted it (an operator's "stuck lock" reflex, a rogue
// client): the next contender may already hold the lock. The watch costs no round trip on the
// acquire's path: after a handoff the loop's own-node check already set it (contender.stands),
// and otherwise it is set by a getData sent once the lease is granted, off the caller's path.
// watchmgr shares it with a revocation watch on the same node, so a lease has one watch at most.
// While held, a lease costs no goroutine: the watch's news calls it back (Watch.OnEvent), and
// only news that is not its own release's starts work, on a warm goroutine (issue 27: a
// goroutine started per watch to read it, a context and an AfterFunc cost every held lease).
//
// go-zookeeper cannot remove a watch: the one on our node is consumed by the node's own delete,
// at release, after the grace of a lost lease, or with the session. Every such end marks the
// lease released or lost before the delete is sent, so the event that follows is no news.

// watchOwn ties the node's life to the deletion of its node: through w, the watch the loop set
// on it, or (w nil) through one set now on a goroutine of its own.
func (n *node) watchOwn(w *framework.Watch) {
	if w != nil {
		n.onOwnEvent(w)
		return
	}
	n.fw.Go(n.armOwn) // a warm goroutine of the Framework's (issue 27)
}

// onOwnEvent runs ownNews once w has news, unless the lease is let go first: letGo stops it
// (stopOwn) before the node's own delete is sent, so a release, whose delete fires the watch,
// starts nothing for an event that is no news. A session interruption is no news: go-zookeeper
// sets the watch again on the next connection, or invalidates it (NotWatching) with the session.
func (n *node) onOwnEvent(w *framework.Watch) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.released {
		return
	}
	h, now := w.OnEvent(func(ev framework.Event) { // on go-zookeeper's loops: hand it over
		n.fw.Go(func() { n.ownNews(ev) })
	})
	if now { // it has fired, or NodeEvent was told of an event for it: read it off the caller's path
		n.fw.Go(func() { n.ownEvent(w) })
		return
	}
	n.stopOwn = h
}

// armOwn sets the data watch on our node while the lease is held. A node already gone is
// deleted; ends of the lease, of the framework or of its session stop it (they end the lease
// through its session epoch); other failures (the retry policy ran out, NoAuth) set it again
// after the retry policy's delay, warning once (rewatch), so that the watch never stops silently
// nor spins while the lease is held.
func (n *node) armOwn() {
	var rw *rewatch // made at the first failure: a lease released before this runs costs none
	for n.ctx.Err() == nil {
		_, _, w, err := n.fw.GetW(framework.Inline(n.ctx), n.path) // inline: this goroutine is the watch's own
		switch {
		case errors.Is(err, framework.ErrNoNode):
			n.deleted()
			return
		case n.ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return
		case err != nil: // NoAuth once READ was removed, say: at the retry policy's pace, never a spin
			if rw == nil {
				rw = newRewatch(n.fw.Logger(), n.fw.RetryPolicy(), "the lease's node for its deletion", n.path)
			}
			if !rw.failed(n.ctx, err) {
				return
			}
			continue
		}
		if rw != nil {
			rw.ok()
		}
		n.onOwnEvent(w)
		return
	}
}

// ownEvent handles the event of the watch on our node, which has news (its event is read from
// the watch), as ownNews. The news is usually the event, in the channel or about to be; an
// event of another kind of watch on the node that came while this one was being set marks it
// too, and then its Wait lasts until the node changes: the lease's end ends it.
func (n *node) ownEvent(w *framework.Watch) {
	ev, err := w.Wait(n.ctx)
	if n.ctx.Err() != nil {
		return
	}
	if err != nil { // invalidated, or the session was interrupted before the event came
		ev = framework.Event{Type: framework.EventNotWatching}
	}
	n.ownNews(ev)
}

// ownNews handles the news of the watch on our node: a delete ends a held lease as lost; a
// data change (a revocation, say) is watched again. An invalidated watch (session expired,
// framework closed: a NotWatching event, or the zero event of the watch manager's end) is the
// session epoch's news, not ours, unless the session is still there (the watch was an older
// one): then the node is watched again. Once the lease has ended (released, lost), the delete
// is our own or expected.
func (n *node) ownNews(ev framework.Event) {
	switch {
	case n.ctx.Err() != nil:
		return
	case ev.Type == framework.EventNotWatching, ev.Type == 0:
		if n.session.Err() == nil {
			n.armOwn()
		}
	case ev.Type == framework.EventNodeDeleted:
		n.deleted()
	default:
		n.armOwn()
	}
}

// deleted ends a held lease whose node someone else deleted: lost, with ErrNodeDeleted, and
// nothing left to delete (no grace, no background delete; Release returns nil at once). A node
// gone with its session (a getData retried in the next session finds it missing before the
// epoch's callback has run) is lost for the session's reason.
func (n *node) deleted() {
	if err := n.session.Err(); err != nil {
		n.lose(err)
		return
	}
	n.mu.Lock()
	held := !n.released
	n.released = true
	n.mu.Unlock()
	if !held {
		return
	}
	n.lock.mine.remove(path.Base(n.path))
	n.lose(ErrNodeDeleted)
}
