package framework

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sync"
)

// SetListing is a set create followed, on the same session, by a listing of every new node's
// parent.
type SetListing struct {
	Paths    []string   // the created nodes, namespace-relative, in the order given
	Session  *Session   // the epoch whose session created them (it may have ended)
	Children [][]string // each parent's children; each contains its node when err == nil
	Parents  []*Stat    // each parent's stat from that listing
}

// CreateSetAndList creates one node under each of paths in one transaction (a Multi), and lists
// their parents with the listings sent right behind the transaction, all in flight together, so
// that the whole costs about one round trip. Every node's last segment gets the protection prefix
// "_c_<uuid>-" with one GUID for the set; mode is a create mode allowed in a transaction
// (ephemeral-sequential for lock contenders); nil data means DefaultData. Missing parents are
// created as containers, and the transaction sent again, when it failed because one was missing
// or reaped. A transaction whose reply was lost is looked for as Protected creates do (a Sync,
// then the first parent: the transaction is atomic, so one directory tells for all) and adopted
// only if the session that sent it still runs; if the create finally fails with its outcome
// unknown, the nodes with our prefix are deleted in the background.
//
// No two paths may share a parent. On error, non-empty Paths means the nodes were created and the
// caller owns them; with an error wrapping ErrNoNode, one of them is gone already (its session
// expired before a listing was answered, or it was deleted). On ctx end the transaction may still
// be applied: the nodes it makes are then deleted in the background.
func (f *Framework) CreateSetAndList(ctx context.Context, paths []string, data [][]byte, mode Mode) (_ SetListing, err error) {
	defer f.traceOp("createSetAndList", paths[0], f.traceStart(), &err)
	if err := f.validateSet(ctx, paths, data); err != nil {
		return SetListing{}, err
	}
	ps, err := f.newProtectedSet(paths, data, mode)
	if err != nil {
		return SetListing{}, err
	}
	cw := f.sockets.awaitCreate(ps.fulls[0])
	defer cw.stop()
	written := cw.written
	done := make(chan setCreated, 1)
	go func() {
		var c setCreated
		c.paths, c.sess, c.err = ps.run(withInline(ctx))
		done <- c
	}()
	var c setCreated
	select {
	case <-written:
	case c = <-done:
		done <- c
	case <-ctx.Done():
	}
	parents := make([]string, len(paths))
	for i, p := range paths {
		parents[i] = path.Dir(p)
	}
	kids, stats, lerr := f.childrenAll(ctx, parents)
	if h := f.createHooks.Load(); h != nil && h.collect != nil {
		h.collect(ctx)
	}
	select {
	case c = <-done:
	case <-ctx.Done():
		go f.deleteLateSet(done)
		return SetListing{}, fmt.Errorf("framework: set create %s: %w (a node it makes is deleted)", paths[0], ctx.Err())
	}
	if c.err != nil {
		return SetListing{}, c.err
	}
	res := SetListing{Session: c.sess}
	for _, p := range c.paths {
		res.Paths = append(res.Paths, f.rel(p))
	}
	if lerr != nil { // a parent that the transaction's retry created, say
		f.relists.Add(1)
		kids, stats, lerr = f.childrenAll(ctx, parents)
	}
	if lerr == nil {
		lerr = f.relistMissing(ctx, res.Paths, kids, stats)
	}
	if lerr != nil {
		return SetListing{Paths: res.Paths, Session: c.sess}, lerr
	}
	res.Children, res.Parents = kids, stats
	return res, nil
}

// setCreated is the outcome of a set create's goroutine.
type setCreated struct {
	paths []string // server paths
	sess  *Session
	err   error
}

// deleteLateSet waits for a set create whose caller left, and deletes the nodes it made.
func (f *Framework) deleteLateSet(done <-chan setCreated) {
	c := <-done
	for _, p := range c.paths {
		f.deleteInBackground(p, -1)
	}
}

// relistMissing lists again each parent whose listing does not show its node (the listing
// overtook a retried transaction); a node still missing is ErrNoNode.
func (f *Framework) relistMissing(ctx context.Context, created []string, kids [][]string, stats []*Stat) error {
	for i, p := range created {
		if slices.Contains(kids[i], path.Base(p)) {
			continue
		}
		f.relists.Add(1)
		var err error
		if kids[i], stats[i], err = f.Children(ctx, path.Dir(p)); err != nil {
			return err
		}
		if !slices.Contains(kids[i], path.Base(p)) {
			return fmt.Errorf("framework: %s missing from its parent's listing right after its create: %w", p, ErrNoNode)
		}
	}
	return nil
}

// childrenAll lists every dir with the requests in flight together, and returns the first error.
func (f *Framework) childrenAll(ctx context.Context, dirs []string) ([][]string, []*Stat, error) {
	kids, stats, errs := make([][]string, len(dirs)), make([]*Stat, len(dirs)), make([]error, len(dirs))
	var wg sync.WaitGroup
	for i := 1; i < len(dirs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kids[i], stats[i], errs[i] = f.Children(ctx, dirs[i])
		}()
	}
	kids[0], stats[0], errs[0] = f.Children(ctx, dirs[0])
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return kids, stats, nil
}
