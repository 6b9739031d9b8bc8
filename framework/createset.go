package framework

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
)

// parentRounds bounds how many times one attempt of a create (or of a set create) is sent when
// missing parents are made in between: a container reaped between its creation and the create
// needs the server's container check to run in between, so a third miss in a row is not a race
// worth chasing.
const parentRounds = 3

// protectedSet is the state of one protected transactional create of several nodes across its
// retries: one GUID names every node of the set.
type protectedSet struct {
	f        *Framework
	prefix   string
	fulls    []string // server paths with the prefix, in the caller's order
	parents  []string // server paths
	reqs     []any
	sentBy   int64           // session that sent the last transaction
	sentIn   *Session        // epoch of the connection that carried it (replyepoch.go)
	inFlight <-chan struct{} // closes when the last transaction request has ended
	tried    bool
	retried  bool
}

// newProtectedSet prepares a set create of paths (namespace-relative, validated) with data.
func (f *Framework) newProtectedSet(paths []string, data [][]byte, mode Mode) (*protectedSet, error) {
	flag, err := mode.flag()
	if err != nil || !mode.isEphemeral() && mode != Persistent && mode != PersistentSequential {
		return nil, fmt.Errorf("%w: mode %v in a set create", ErrInvalidOption, mode)
	}
	ps := &protectedSet{f: f, prefix: ProtectedPrefix((*newProtectedID.Load())(f))}
	for i, p := range paths {
		full := f.full(p)
		parent := path.Dir(full)
		fp := joinChild(parent, ps.prefix+path.Base(full))
		d := data[i]
		if d == nil {
			d = f.cfg.defaultData
		}
		if err := validateData(p, d); err != nil {
			return nil, err
		}
		ps.fulls, ps.parents = append(ps.fulls, fp), append(ps.parents, parent)
		ps.reqs = append(ps.reqs, &zk.CreateRequest{Path: fp, Data: d, Acl: f.cfg.acl.ForPath(fp), Flags: flag})
	}
	return ps, nil
}

// run creates the set in one transaction. Before each retry it looks for the set (see find);
// if the create finally fails with its outcome unknown, every node with our prefix is deleted in
// the background. It returns the created server paths in the caller's order.
func (ps *protectedSet) run(ctx context.Context) ([]string, *Session, error) {
	var created []string
	var lastErr error
	err := ps.f.retry(ctx, func(ctx context.Context) error {
		var err error
		created, err = ps.attempt(ctx)
		lastErr = err
		return err
	})
	if err != nil {
		if ps.tried && (ctx.Err() != nil || errors.Is(lastErr, ErrClosed) || Classify(lastErr) != retry.Permanent) {
			ps.cleanupInBackground()
		}
		return nil, nil, err
	}
	if ps.retried {
		ps.removeDuplicates(ctx, created)
	}
	return created, ps.sentIn, nil
}

// attempt looks for the set (after a first try) and otherwise sends the transaction, creating
// missing parents as containers and trying again when one was missing (or reaped meanwhile).
func (ps *protectedSet) attempt(ctx context.Context) ([]string, error) {
	if ps.tried {
		ps.retried = true
		found, err := ps.find(ctx)
		if err != nil || found != nil {
			return found, err
		}
	}
	ps.tried = true
	for round := 1; ; round++ {
		created, err := ps.send(ctx)
		if !errors.Is(err, zk.ErrNoNode) || round == parentRounds {
			return created, err
		}
		for _, parent := range ps.parents {
			if err := ps.f.makeParents(ctx, parent); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return nil, err // NoNode: ancestors kept vanishing; the next round walks again
			}
			if h := ps.f.mkdirsHook.Load(); h != nil {
				(*h)(mkdirsMade, parent)
			}
		}
	}
}

// send sends the transaction once and records the epoch of the connection that carried it
// (see createNode).
func (ps *protectedSet) send(ctx context.Context) ([]string, error) {
	f := ps.f
	ps.sentBy = f.conn.SessionID()
	carrier := f.sockets.carrier()
	res, err, done := callTracked(f, ctx, func() ([]zk.MultiResponse, error) { return f.conn.Multi(ps.reqs...) })
	ps.inFlight = done
	f.replyHook(err)
	ps.sentIn = carrier.replyEpoch()
	if err != nil {
		return nil, err
	}
	created := make([]string, len(res))
	for i, r := range res {
		created[i] = r.String
	}
	return created, nil
}

// find looks for a set sent before: after a Sync, it lists the first parent for our prefix (the
// transaction is atomic, so one directory tells for all). A set is adopted only if its owner is
// the session that sent it and is still ours, and only whole; otherwise the nodes found are
// deleted in the background and the caller creates anew (nil, nil).
func (ps *protectedSet) find(ctx context.Context) ([]string, error) {
	first, err := ps.lookup(ctx, 0, true)
	if err != nil || first == "" {
		return nil, err
	}
	found := []string{first}
	ours, err := ps.owned(ctx, first)
	for i := 1; err == nil && ours && i < len(ps.parents); i++ {
		var p string
		if p, err = ps.lookup(ctx, i, false); p == "" {
			ours = false // deleted by someone: queue the set anew
		} else {
			found = append(found, p)
		}
	}
	if err != nil {
		return nil, err
	}
	if !ours {
		for _, p := range found {
			ps.f.deleteInBackground(p, -1)
		}
		return nil, nil
	}
	return found, nil
}

// lookup returns the server path of our node under parent i, or "" (after a Sync if synced).
func (ps *protectedSet) lookup(ctx context.Context, i int, synced bool) (string, error) {
	var kids []string
	var err error
	if synced {
		kids, err = ps.f.syncedChildren(ctx, ps.parents[i])
	} else {
		kids, err = call(ps.f, ctx, func() ([]string, error) {
			c, _, err := ps.f.conn.Children(ps.parents[i])
			return c, err
		})
	}
	if errors.Is(err, zk.ErrNoNode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	want := path.Base(ps.fulls[i])
	for _, k := range kids {
		if strings.HasPrefix(k, want) { // the prefix, the name, and any sequence
			return joinChild(ps.parents[i], k), nil
		}
	}
	return "", nil
}

// owned reports whether node is persistent, or an ephemeral owned by the session that sent the
// transaction, which must still be the current session.
func (ps *protectedSet) owned(ctx context.Context, node string) (bool, error) {
	stat, err := call(ps.f, ctx, func() (*Stat, error) {
		ok, s, err := ps.f.conn.Exists(node)
		if !ok {
			s = nil
		}
		return s, err
	})
	if err != nil || stat == nil {
		return false, err
	}
	return stat.EphemeralOwner == 0 || stat.EphemeralOwner == ps.sentBy && ps.sentBy == ps.f.conn.SessionID(), nil
}

// removeDuplicates deletes, under every parent, the nodes with our prefix other than keep: an
// earlier transaction may have been applied after the find that preceded the retry.
func (ps *protectedSet) removeDuplicates(ctx context.Context, keep []string) {
	for i, parent := range ps.parents {
		kids, err := ps.f.syncedChildren(ctx, parent)
		if err != nil {
			ps.f.log.Debug("framework: set create: duplicate check failed", "parent", parent, "err", err)
			ps.deletePrefixedInBackground(parent, keep[i])
			continue
		}
		for _, k := range kids {
			if node := joinChild(parent, k); strings.HasPrefix(k, ps.prefix) && node != keep[i] {
				ps.f.log.Info("framework: set create: deleting a duplicate of our node", "path", node)
				ps.f.deleteInBackground(node, -1)
			}
		}
	}
}

// cleanupInBackground waits for the last transaction to end, then deletes every node with our
// prefix under every parent.
func (ps *protectedSet) cleanupInBackground() {
	inFlight := ps.inFlight
	ps.f.goBackground(func(ctx context.Context) {
		if inFlight != nil {
			select {
			case <-inFlight:
			case <-ctx.Done():
				return
			}
		}
		for _, parent := range ps.parents {
			ps.deletePrefixed(ctx, parent, "")
		}
	})
}

// deletePrefixedInBackground is deletePrefixed on a background goroutine.
func (ps *protectedSet) deletePrefixedInBackground(parent, keep string) {
	ps.f.goBackground(func(ctx context.Context) { ps.deletePrefixed(ctx, parent, keep) })
}

// deletePrefixed deletes every child of parent with our prefix except keep, until listed or ctx
// ends.
func (ps *protectedSet) deletePrefixed(ctx context.Context, parent, keep string) {
	for ctx.Err() == nil {
		kids, err := ps.f.listForCleanup(ctx, parent)
		if err != nil {
			continue
		}
		for _, k := range kids {
			if node := joinChild(parent, k); strings.HasPrefix(k, ps.prefix) && node != keep {
				ps.f.deleteGuaranteed(ctx, node, -1)
			}
		}
		return
	}
}

// validateSet checks the paths of a set create: at least one, valid, no parent twice.
func (f *Framework) validateSet(ctx context.Context, paths []string, data [][]byte) error {
	if len(paths) == 0 || len(data) != len(paths) {
		return fmt.Errorf("%w: set create of %d paths with %d data", ErrInvalidOption, len(paths), len(data))
	}
	seen := make([]string, 0, len(paths))
	for _, p := range paths {
		if err := f.check(ctx, p, true); err != nil {
			return err
		}
		if slices.Contains(seen, path.Dir(p)) {
			return fmt.Errorf("%w: parent %s twice in a set create", ErrInvalidOption, path.Dir(p))
		}
		seen = append(seen, path.Dir(p))
	}
	return nil
}
