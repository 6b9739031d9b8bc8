package framework

import "context"

type aclResult struct {
	acl  []ACL
	stat *Stat
}

// GetACL returns the node's ACL and Stat (ErrNoNode when absent; ErrNoAuth without READ or
// ADMIN on it, as the server decides). On ctx end it returns ctx's error; after Close,
// ErrClosed.
func (f *Framework) GetACL(ctx context.Context, path string) (_ []ACL, _ *Stat, err error) {
	defer f.traceOp("getACL", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, err
	}
	res, err := op(f, ctx, func() (aclResult, error) {
		acl, s, err := f.conn.GetACL(f.full(path))
		return aclResult{acl, s}, err
	})
	if err != nil {
		return nil, nil, err
	}
	return res.acl, res.stat, nil
}

// SetACL replaces the node's ACL if its ACL version (Stat.Aversion) matches (-1: any). It needs
// ADMIN on the node. ErrNoNode, ErrBadVersion, ErrNoAuth. A retried SetACL after a connection
// loss may report ErrBadVersion although the first attempt applied.
func (f *Framework) SetACL(ctx context.Context, path string, acl []ACL, version int32) (_ *Stat, err error) {
	defer f.traceOp("setACL", path, f.traceStart(), &err)
	if err := f.check(ctx, path, true); err != nil {
		return nil, err
	}
	return op(f, ctx, func() (*Stat, error) { return f.conn.SetACL(f.full(path), acl, version) })
}
