package framework

import (
	"context"
)

// Exists returns the node's Stat, or (nil, nil) when it does not exist. "/" is allowed.
// On ctx end it returns ctx's error; after Close, ErrClosed.
func (f *Framework) Exists(ctx context.Context, path string) (_ *Stat, err error) {
	defer f.traceOp("exists", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, err
	}
	return op(f, ctx, func() (*Stat, error) {
		ok, s, err := f.conn.Exists(f.full(path))
		if err != nil || !ok {
			return nil, err
		}
		return s, nil
	})
}

type getResult struct {
	data []byte
	stat *Stat
}

// Get returns the node's data and Stat (ErrNoNode when absent). "/" is allowed.
func (f *Framework) Get(ctx context.Context, path string) (_ []byte, _ *Stat, err error) {
	defer f.traceOp("getData", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, err
	}
	res, err := op(f, ctx, func() (getResult, error) {
		d, s, err := f.conn.Get(f.full(path))
		return getResult{d, s}, err
	})
	if err != nil {
		return nil, nil, err
	}
	return res.data, res.stat, nil
}

// Set replaces the node's data if its version matches (-1: any). ErrNoNode, ErrBadVersion.
// A retried Set after a connection loss may report ErrBadVersion although the first attempt applied.
func (f *Framework) Set(ctx context.Context, path string, data []byte, version int32) (_ *Stat, err error) {
	defer f.traceOp("setData", path, f.traceStart(), &err)
	if err := f.check(ctx, path, true); err != nil {
		return nil, err
	}
	if err := validateData(path, data); err != nil {
		return nil, err
	}
	stat, err := op(f, ctx, func() (*Stat, error) { return f.conn.Set(f.full(path), data, version) })
	if err != nil {
		return nil, err
	}
	return stat, nil
}

type childrenResult struct {
	names []string
	stat  *Stat
}

// Children lists the node's children (names, unsorted) and its Stat. "/" is allowed.
func (f *Framework) Children(ctx context.Context, path string) (_ []string, _ *Stat, err error) {
	defer f.traceOp("getChildren", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, err
	}
	res, err := opWith(f, ctx, pathArgs{f.conn, f.full(path)}, func(a pathArgs) (childrenResult, error) {
		names, s, err := a.conn.Children(a.full)
		return childrenResult{names, s}, err
	})
	if err != nil {
		return nil, nil, err
	}
	return res.names, res.stat, nil
}

// Sync asks the server this client is connected to to catch up with the leader for path.
func (f *Framework) Sync(ctx context.Context, path string) (err error) {
	defer f.traceOp("sync", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return err
	}
	_, err = op(f, ctx, func() (string, error) { return f.conn.Sync(f.full(path)) })
	return err
}
