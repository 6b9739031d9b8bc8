package framework

import (
	"context"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/watchmgr"
)

// The watch events' paths are server paths (with the namespace). Watches record the
// namespace-relative path, which Watch.Path returns.
//
// At most one go-zookeeper watch exists per (kind, path) and session: go-zookeeper v1.0.4 cannot
// remove a watch, so a waiter that gives up would otherwise leave its watch channel behind until
// the node changes. While a watch of the same kind and path is live (and its event not yet on
// its way), GetW, ExistsW and ChildrenW read with the plain request and return a Watch that
// shares its event.

// watchRead runs one watching read under the retry policy: it shares the live go-zookeeper watch
// of (kind, p) through a plain read, or registers a new one through the watching read. plain and
// watching capture nothing: they get the connection and the server path in a (callWith).
func watchRead[T any](f *Framework, ctx context.Context, kind watchmgr.Kind, p string, a pathArgs,
	plain func(pathArgs) (T, error), watching func(pathArgs) (T, <-chan zk.Event, error)) (T, *watchmgr.Watch, error) {
	var v T
	var w *watchmgr.Watch
	err := f.retry(ctx, func(ctx context.Context) error {
		shared, reg, err := f.wm.Reserve(ctx, kind, p)
		if err != nil {
			return err
		}
		if shared != nil {
			v, err = callWith(f, ctx, a, plain)
			w = shared
			return err
		}
		r, err, finished := callTrackedWith(f, ctx, watchingArgs[T]{f, reg, a, watching}, watchingRead[T])
		select {
		case <-finished: // the request ended, or never ran (closed): the reservation must not linger
			reg.Cancel()
			f.openIfNothingToResend()
		default: // still in flight (ctx ended): it ends the reservation when it returns
		}
		v, w = r.v, r.w
		return err
	})
	return v, w, err
}

// watchingArgs is the argument of watchRead's watching request (callWith).
type watchingArgs[T any] struct {
	f        *Framework
	reg      *watchmgr.Registration
	a        pathArgs
	watching func(pathArgs) (T, <-chan zk.Event, error)
}

// watchedRead is what a watching read returns: its result and the watch it set.
type watchedRead[T any] struct {
	v T
	w *watchmgr.Watch
}

// watchingRead sends a watching read and tracks the watch it set, or cancels the reservation.
func watchingRead[T any](x watchingArgs[T]) (watchedRead[T], error) {
	f := x.f
	carrier := f.sockets.carrier() // the connection the request rides, or dies before (replyepoch.go)
	v, ch, err := x.watching(x.a)
	if err != nil || ch == nil {
		x.reg.Cancel()
		f.openIfNothingToResend()
		return watchedRead[T]{v: v}, err
	}
	if h := f.watchHook.Load(); h != nil {
		(*h)()
	}
	var origin any // the watch's connection, when request and reply provably rode one
	if carrier != nil && f.sockets.carrier() == carrier {
		origin = carrier
	}
	return watchedRead[T]{v, x.reg.TrackOn(ch, origin)}, nil
}

type getResultW struct {
	data []byte
	stat *Stat
}

// GetW returns the node's data and Stat and a watch that fires on change or delete. On ErrNoNode no
// watch is set. It sets no new go-zookeeper watch while one on the same node is live (it shares
// it); a watch is counted (Watches) even if ctx ended before the reply.
func (f *Framework) GetW(ctx context.Context, path string) (_ []byte, _ *Stat, _ *watchmgr.Watch, err error) {
	defer f.traceOp("getDataW", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, nil, err
	}
	res, w, err := watchRead(f, ctx, watchmgr.Data, path, pathArgs{f.conn, f.full(path)}, func(a pathArgs) (getResultW, error) {
		d, s, err := a.conn.Get(a.full)
		return getResultW{d, s}, err
	}, func(a pathArgs) (getResultW, <-chan zk.Event, error) {
		d, s, ch, err := a.conn.GetW(a.full)
		return getResultW{d, s}, ch, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.data, res.stat, w, nil
}

// ExistsW returns the node's Stat (nil when absent) and a watch that fires on create, change or
// delete, shared like GetW's. Prefer GetW on a node that exists: an exists watch on a missing node
// stays on the server until the node appears or the session ends.
func (f *Framework) ExistsW(ctx context.Context, path string) (_ *Stat, _ *watchmgr.Watch, err error) {
	defer f.traceOp("existsW", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, err
	}
	stat, w, err := watchRead(f, ctx, watchmgr.Exists, path, pathArgs{f.conn, f.full(path)}, func(a pathArgs) (*Stat, error) {
		ok, s, err := a.conn.Exists(a.full)
		if !ok {
			s = nil
		}
		return s, err
	}, func(a pathArgs) (*Stat, <-chan zk.Event, error) {
		ok, s, ch, err := a.conn.ExistsW(a.full)
		if !ok {
			s = nil
		}
		return s, ch, err
	})
	if err != nil {
		return nil, nil, err
	}
	return stat, w, nil
}

// ChildrenW lists the children and returns a watch that fires on a child change or delete of the
// node, shared like GetW's. On ErrNoNode no watch is set.
func (f *Framework) ChildrenW(ctx context.Context, path string) (_ []string, _ *Stat, _ *watchmgr.Watch, err error) {
	defer f.traceOp("getChildrenW", path, f.traceStart(), &err)
	if err := f.check(ctx, path, false); err != nil {
		return nil, nil, nil, err
	}
	res, w, err := watchRead(f, ctx, watchmgr.Children, path, pathArgs{f.conn, f.full(path)}, func(a pathArgs) (childrenResult, error) {
		names, s, err := a.conn.Children(a.full)
		return childrenResult{names, s}, err
	}, func(a pathArgs) (childrenResult, <-chan zk.Event, error) {
		names, s, ch, err := a.conn.ChildrenW(a.full)
		return childrenResult{names, s}, ch, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.names, res.stat, w, nil
}

// InOrder reports whether w was set on the connection the framework writes on now, so that w's
// event, if its node has changed, came before any later reply or event the caller has seen
// (ZooKeeper sends one connection its replies and watch events in the order of the changes).
// Then a caller that saw a later change (another node's deletion, in a reply or an event) with
// w quiet (HasFired false) knows that w's node had not changed when that change was made. False
// after a reconnect (go-zookeeper re-registers watches and the server may then report changes
// made meanwhile in any order), and for a watch whose connection is unknown: read instead.
func (f *Framework) InOrder(w *Watch) bool {
	c := w.Origin()
	return c != nil && c == any(f.sockets.carrier())
}
