package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// txSet is one queued set of a transactional multi-lock: our node in every lock directory, all
// created by one transaction of session createdBy.
type txSet struct {
	fw        *framework.Framework
	cs        []*contender // one per lock, in the multi-lock's order
	tokens    []*token
	createdBy int64
	granted   *framework.Session // the epoch of the listings that granted
	queued    bool
	try       bool // TryAcquire: a lock not granted by the first listings is ErrLocked
	busy      int  // with try, the lock found busy (its LockedError names the node ahead), else -1
	// held marks the locks a listing has shown held. A lock stays held once it is: the nodes
	// created after ours sort behind it, and a driver decides on the nodes ahead of ours, which
	// can only go. So a waiter lists again only the directories of the locks it does not hold.
	held []bool
	own  []*framework.Watch // the data watch on our node of each lock held, when a listing round set one
}

// wait decides every lock on children, listings taken in epoch sess, and waits for the first lock
// we do not hold (on the one node its driver names: no herd), then lists again the directories of
// the locks not yet held, until every lock has been shown held: by a listing, or by the deletion
// of the node it waited for when its driver says that deletion grants it (GoneHolds), as a single
// lock's wait does. Every round after the first also checks that our nodes of the locks held
// still stand (see list), so a set is granted only by a round that saw all of them. A grant needs
// the last listings' epoch live and the session that created our nodes, as a single lock's; if
// that epoch has ended, every directory is listed again.
func (s *txSet) wait(ctx context.Context, sess *framework.Session, children [][]string, err error) error {
	s.held = make([]bool, len(s.cs))
	for {
		if err != nil {
			return err
		}
		blocked, dec, derr := s.decide(children)
		switch {
		case derr != nil:
			return derr
		case blocked >= 0 && s.try:
			return s.locked(blocked, dec)
		case blocked >= 0:
			gone, werr := s.waitOn(ctx, sess, blocked, dec)
			if werr != nil {
				return werr
			}
			if gone {
				s.held[blocked] = true // the next round only checks that our nodes stand
			}
		}
		if blocked < 0 {
			if sess.Err() == nil {
				if sess.ID() != s.createdBy {
					return fmt.Errorf("%w: %s: created by session 0x%x, now 0x%x",
						driver.ErrOwnNodeMissing, s.cs[0].path, s.createdBy, sess.ID())
				}
				s.granted = sess
				return nil
			}
			clear(s.held) // confirm the whole set in the new epoch
		}
		sess = s.fw.Session()
		children, err = s.list(ctx)
	}
}

// decide asks the driver of every lock not yet held (all of them: a node of ours that vanished
// from any directory listed re-queues the set), marks those it holds, and returns the first lock
// we do not hold, or -1, with its decision.
func (s *txSet) decide(children [][]string) (int, driver.Decision, error) {
	blocked, first := -1, driver.Decision{}
	for i, c := range s.cs {
		if s.held[i] {
			continue
		}
		if err := c.lock.checkDepth(children[i]); err != nil {
			return -1, first, err
		}
		dec, err := c.evaluate(children[i], nil)
		switch {
		case err != nil:
			return -1, first, err
		case dec.WatchDir:
			return -1, first, fmt.Errorf("%w: %s: the driver waits for the directory", ErrNotTransactional, c.lock.path)
		case dec.Holds:
			s.held[i] = true
		case blocked < 0:
			blocked, first = i, dec
		}
	}
	return blocked, first, nil
}

// locked is TryAcquire's ErrLocked for lock i, blocked by the node its decision dec names. When
// another contender's node holds it, the error names that node, and s.busy marks lock i: the
// abandon reads its stat (fail), as a single lock's TryAcquire does, and a squatter is a foreign
// node rather than a busy lock.
func (s *txSet) locked(i int, dec driver.Decision) error {
	le := s.cs[i].self.lockedError(s.cs[i].lock.path)
	if le.Held == "" && dec.WatchNode != "" {
		le.node, s.busy = dec.WatchNode, i
	}
	return le
}

// fail deletes the set after err ended the wait, and returns what the acquire fails with: when
// TryAcquire found a lock busy, ErrForeignNode if the node ahead in it is a squatter (its stat
// read while the set is deleted: no extra round trip), else err.
func (s *txSet) fail(ctx context.Context, err error) error {
	if s.busy < 0 {
		s.abandon(ctx)
		return err
	}
	return s.cs[s.busy].lock.foreignAhead(ctx, err, func() { s.abandon(ctx) })
}

// waitOn waits once for the node that lock i's decision, made on a listing of epoch sess,
// names, and reports whether its deletion grants lock i (see contender.watchAhead: a watch set
// once sess has ended is not waited on, so a set whose nodes went with an expired session
// lists again and queues anew instead of waiting, nodeless, on a watch of the new session).
func (s *txSet) waitOn(ctx context.Context, sess *framework.Session, i int, dec driver.Decision) (bool, error) {
	c := s.cs[i]
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if !s.queued {
		s.queued = true
		c.lock.event(eventQueued, c.path, 0, nil)
	}
	t := c.watchAhead(ctx, sess, dec, nil)
	switch {
	case t.err != nil:
		return false, t.err
	case t.w == nil: // gone already (held when its deletion grants), or sess ended: list again
		return t.held, nil
	}
	ev, err := waitWatch(ctx, t.w, nil)
	if err != nil {
		return false, ignoreInterrupt(err)
	}
	return t.goneHolds && ev.Type == framework.EventNodeDeleted, nil
}

// list lists the directory of every lock not yet held (nil for a lock held), and checks that
// our node of every lock held still stands, the requests in flight together: a lock shown held
// stays held only while our node stands, and an operator or a tool may delete it while we wait
// for another lock; then the whole set queues again (ErrOwnNodeMissing).
func (s *txSet) list(ctx context.Context) ([][]string, error) {
	kids, errs := make([][]string, len(s.cs)), make([]error, len(s.cs))
	if s.own == nil {
		s.own = make([]*framework.Watch, len(s.cs))
	}
	one := func(i int) {
		if s.held[i] {
			s.own[i], errs[i] = s.cs[i].stands(ctx)
			return
		}
		kids[i], errs[i] = s.cs[i].lock.list(ctx)
	}
	var wg sync.WaitGroup
	for i := range s.cs[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one(i + 1)
		}()
	}
	one(0)
	wg.Wait()
	return kids, errors.Join(errs...)
}

// paths returns our nodes.
func (s *txSet) paths() []string {
	out := make([]string, len(s.cs))
	for i, c := range s.cs {
		out[i] = c.path
	}
	return out
}

// abandon deletes the nodes of a set that failed, in one transaction where it can, as a cleanup
// (cleanupContext): never past ctx; the rest goes on in the background.
func (s *txSet) abandon(ctx context.Context) {
	dctx, cancel := cleanupContext(ctx, s.fw)
	defer cancel()
	if deleteInOne(dctx, s.fw, s.paths()) {
		return
	}
	for _, p := range s.paths() {
		if dctx.Err() != nil {
			s.fw.DeleteInBackground(p)
			continue
		}
		if err := s.fw.Delete(dctx, p, framework.Guaranteed()); err != nil && !errors.Is(err, framework.ErrNoNode) {
			s.fw.Logger().Debug("recipes: cleanup delete continues in the background", "path", p, "err", err)
		}
	}
}

// deleteInOne deletes paths in one transaction under ctx, and reports whether it did. It fails
// when one node is gone already (an expired session's, or a retried transaction that had been
// applied): the caller then deletes them one by one, NoNode being success.
func deleteInOne(ctx context.Context, fw *framework.Framework, paths []string) bool {
	if ctx.Err() != nil || len(paths) == 0 {
		return len(paths) == 0
	}
	ops := make([]framework.Op, len(paths))
	for i, p := range paths {
		ops[i] = framework.DeleteOp(p, -1)
	}
	_, err := fw.Multi(ctx, ops...)
	return err == nil
}

// leases wraps the granted set in one Lease per lock, each with the one life path of every
// lease (newLease): loss, the loss grace and release behave as for a single lock.
func (s *txSet) leases(start time.Time) []Held {
	out := make([]Held, len(s.cs))
	for i, c := range s.cs {
		l := c.lock
		g := grant{path: c.path, session: s.granted, token: s.tokens[i]}
		if s.own != nil {
			g.own = s.own[i] // a watch the loop set on our node, kept by the lease
		}
		lease := newLease(l, g)
		l.event(eventAcquired, c.path, time.Since(start), nil)
		if l.opts.revoke != nil {
			go watchRevocation(lease, l.opts.revoke)
		}
		out[i] = lease
	}
	return out
}

// releaseTx releases every lease of a transactional set: each counts one release, as Release
// does; the nodes whose last release it was are deleted in one transaction bounded by ctx (one
// by one, NoNode being success, if the transaction fails; in the background once ctx ends).
func (ml *MultiLease) releaseTx(ctx context.Context) error {
	var errs []error
	var nodes []*node
	for _, h := range ml.leases {
		l := h.(*Lease)
		last, err := l.releaseOne()
		if err != nil {
			errs = append(errs, err)
		}
		if last && l.letGo() {
			nodes = append(nodes, l.node)
		}
	}
	paths := make([]string, len(nodes))
	for i, n := range nodes {
		paths[i] = n.path
	}
	if !deleteInOne(ctx, ml.fw, paths) {
		for _, n := range nodes {
			if err := n.deleteNow(ctx); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
