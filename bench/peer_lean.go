package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// Names of the lean reference's variants in the tables (diagnostic, issue 27).
const (
	leanEngineName       = "lean engine no-cancel"
	leanEngineCancelName = "lean engine"
)

// leanEnginePeer is the framework floor (peer_floor.go) with what the recipe's exclusive lock
// promises its holder added in the fewest lines: a grant only on a listing that shows our node,
// taken in the live epoch that created it (else a fresh node, as the recipe re-queues); the
// lease's loss signal (a context that ends with that epoch, through Session.AfterEnd); a fencing
// token (the listing right behind the create gives our node's czxid); a squatter ahead (a node
// that is not ephemeral) refused; a listing-size limit; a guaranteed delete at release. It keeps
// the floor's requests (a create, then a listing: no pipelining). With noCancel it runs
// everything under context.Background(), on the caller's goroutine, like "zkrecipes no-cancel";
// otherwise under the harness's cancellable context, as "zkrecipes" does: the deadline kept the
// simplest way, each request on a warm goroutine beside the caller (one hand-off per request,
// the framework's own), the wait on the watch under the context. It has none of the
// engine's structure (drivers, views, the contender's turns, the node's life, events), so paired
// against the floor it prices those promises, and against "zkrecipes no-cancel" the engine that
// carries them. It has no own-node watch, sticky slot, revocation or loss grace (the contended
// rows use none of them). Diagnostic: it runs only when named.
func leanEnginePeer(noCancel bool) harness.Peer {
	return zkrecipesVariant(variantName(noCancel, leanEngineCancelName, leanEngineName), func(s *zkrSession) harness.Session {
		return leanSession{zkrSession: s, noCancel: noCancel}
	})
}

type leanSession struct {
	*zkrSession
	noCancel bool
}

func (s leanSession) Mutex(dir string) (harness.Locker, error) {
	return &leanLock{fw: s.fw, dir: dir, noCancel: s.noCancel}, nil
}

// leanListingLimit is the recipe's default listing limit, in bytes as ZooKeeper encodes a
// listing: 4 plus the name's length per child.
const leanListingLimit = recipes.DefaultListingLimit

// leanRequeues bounds the fresh nodes of one Acquire (the recipe's retry policy does).
const leanRequeues = 3

var (
	errLeanNodeGone = errors.New("bench: lean engine: our node is gone")
	errLeanSquatter = errors.New("bench: lean engine: a node that is not ephemeral is ahead")
	errLeanTooDeep  = errors.New("bench: lean engine: the listing is past the limit")
	errLeanReleased = errors.New("bench: lean engine: released")
)

// leanLock is one lock path's lean mutex; the harness uses each from one goroutine at a time.
type leanLock struct {
	fw       *framework.Framework
	dir      string
	noCancel bool
	held     *leanLease
}

// leanLease is a grant: Done ends when the epoch that created the node does, or at release.
type leanLease struct {
	path   string
	ctx    context.Context
	cancel context.CancelCauseFunc
	hook   framework.EndHook
	czxid  int64 // the fencing token, 0 when the listing did not give it (read on demand)
}

// Done is the loss signal.
func (ls *leanLease) Done() <-chan struct{} { return ls.ctx.Done() }

func (l *leanLock) Acquire(ctx context.Context) error {
	ctx = variantContext(l.noCancel, ctx)
	for i := 0; ; i++ {
		ls, err := l.attempt(ctx)
		if errors.Is(err, errLeanNodeGone) && i < leanRequeues {
			continue
		}
		if err != nil {
			return err
		}
		l.held = ls
		return nil
	}
}

// attempt is one node's life: create it, list until it is first, watching only the node ahead.
func (l *leanLock) attempt(ctx context.Context) (_ *leanLease, err error) {
	p, created, err := l.fw.CreateIn(ctx, l.dir+"/lock-", nil, framework.WithMode(framework.EphemeralSequential),
		framework.Protected(), framework.CreatingParents())
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			l.fw.DeleteInBackground(p)
		}
	}()
	name := p[strings.LastIndexByte(p, '/')+1:]
	seq, ok := floorSeq(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", errFloorNoSequence, p)
	}
	var czxid int64
	for first := true; ; first = false {
		sess := l.fw.Session()
		children, stat, err := l.fw.Children(ctx, l.dir)
		if err != nil {
			return nil, err
		}
		if first && int64(stat.Cversion) == seq+1 {
			czxid = stat.Pzxid // nobody changed the children between our create and this listing
		}
		prev, mine, size := leanScan(children, name, seq)
		switch {
		case size > leanListingLimit:
			return nil, fmt.Errorf("%w: %s: %d bytes", errLeanTooDeep, l.dir, size)
		case !mine:
			return nil, fmt.Errorf("%w: %s", errLeanNodeGone, p)
		case sess.Err() != nil:
			continue // a listing of an epoch that ended proves nothing: list again
		case prev == "" && sess.ID() != created.ID():
			return nil, fmt.Errorf("%w: %s: created by another session", errLeanNodeGone, p)
		case prev == "":
			ls := &leanLease{path: p, czxid: czxid}
			ls.ctx, ls.cancel = context.WithCancelCause(context.Background())
			sess.AfterEnd(&ls.hook, func() { ls.cancel(sess.Err()) })
			return ls, nil
		}
		_, st, w, err := l.fw.GetW(ctx, l.dir+"/"+prev)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if st.EphemeralOwner == 0 {
			return nil, fmt.Errorf("%w: %s/%s", errLeanSquatter, l.dir, prev)
		}
		if sess.Err() != nil {
			continue // the watch may be of a later epoch, in which our node may be gone
		}
		if _, err := w.Wait(ctx); err != nil && !errors.Is(err, framework.ErrSessionInterrupted) {
			return nil, err
		}
	}
}

// leanScan finds the contender just ahead of ours (seq, named name) in children, whether ours is
// listed, and the listing's encoded size.
func leanScan(children []string, name string, seq int64) (prev string, mine bool, size int) {
	prevSeq := int64(-1)
	for _, c := range children {
		size += 4 + len(c)
		if c == name {
			mine = true
			continue
		}
		if s, ok := floorSeq(c); ok && s < seq && s > prevSeq {
			prev, prevSeq = c, s
		}
	}
	return prev, mine, size
}

func (l *leanLock) Release(ctx context.Context) error {
	ctx = variantContext(l.noCancel, ctx)
	ls := l.held
	if ls == nil {
		return errNotHeld
	}
	l.held = nil
	ls.hook.Stop()
	ls.cancel(errLeanReleased)
	return l.fw.Delete(ctx, ls.path, framework.Guaranteed())
}
