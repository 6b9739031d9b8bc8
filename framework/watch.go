package framework

import (
	"context"

	"github.com/zkrecipes/zkrecipes/watchmgr"
)

// The watch events' paths are server paths (with the namespace). Track records the
// namespace-relative path, which Watch.Path returns.

type getWResult struct {
	data []byte
	stat *Stat
	w    *watchmgr.Watch
}

// GetW returns the node's data and Stat and sets a data watch (fires on change or delete). On
// ErrNoNode no watch is set. The watch is tracked (Watches) even if ctx ended before the reply.
func (f *Framework) GetW(ctx context.Context, path string) ([]byte, *Stat, *watchmgr.Watch, error) {
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, nil, err
	}
	res, err := op(f, ctx, func() (getWResult, error) {
		d, s, ch, err := f.conn.GetW(f.full(path))
		if err != nil {
			return getWResult{}, err
		}
		return getWResult{d, s, f.wm.Track(watchmgr.Data, path, ch)}, nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.data, res.stat, res.w, nil
}

type existsWResult struct {
	stat *Stat
	w    *watchmgr.Watch
}

// ExistsW returns the node's Stat (nil when absent) and sets a watch that fires on create, change or
// delete. Prefer GetW on a node that exists: an exists watch on a missing node stays on the server
// until the node appears or the session ends.
func (f *Framework) ExistsW(ctx context.Context, path string) (*Stat, *watchmgr.Watch, error) {
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, err
	}
	res, err := op(f, ctx, func() (existsWResult, error) {
		ok, s, ch, err := f.conn.ExistsW(f.full(path))
		if err != nil {
			return existsWResult{}, err
		}
		if !ok {
			s = nil
		}
		return existsWResult{s, f.wm.Track(watchmgr.Exists, path, ch)}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return res.stat, res.w, nil
}

type childrenWResult struct {
	names []string
	stat  *Stat
	w     *watchmgr.Watch
}

// ChildrenW lists the children and sets a watch that fires on a child change or delete of the node.
// On ErrNoNode no watch is set.
func (f *Framework) ChildrenW(ctx context.Context, path string) ([]string, *Stat, *watchmgr.Watch, error) {
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, nil, err
	}
	res, err := op(f, ctx, func() (childrenWResult, error) {
		names, s, ch, err := f.conn.ChildrenW(f.full(path))
		if err != nil {
			return childrenWResult{}, err
		}
		return childrenWResult{names, s, f.wm.Track(watchmgr.Children, path, ch)}, nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.names, res.stat, res.w, nil
}
