package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

type opKind int

const (
	opCreate opKind = iota + 1
	opDelete
	opSet
	opCheck
)

// Op is one operation of a Multi transaction. Build it with CreateOp, DeleteOp, SetOp or CheckOp.
type Op struct {
	kind    opKind
	path    string
	data    []byte
	mode    Mode
	version int32
}

// CreateOp creates path with data (nil: DefaultData) and the provider's ACL. Container and TTL modes
// are not available inside a transaction.
func CreateOp(path string, data []byte, mode Mode) Op {
	return Op{kind: opCreate, path: path, data: data, mode: mode}
}

// DeleteOp deletes path if its version matches (-1: any).
func DeleteOp(path string, version int32) Op { return Op{kind: opDelete, path: path, version: version} }

// SetOp sets path's data if its version matches (-1: any).
func SetOp(path string, data []byte, version int32) Op {
	return Op{kind: opSet, path: path, data: data, version: version}
}

// CheckOp fails the transaction unless path exists with this version (-1: any).
func CheckOp(path string, version int32) Op { return Op{kind: opCheck, path: path, version: version} }

// Path returns the op's namespace-relative path.
func (o Op) Path() string { return o.path }

// OpResult is the outcome of one op: the created path (namespace-relative) for a create, the Stat
// for a set, and Err (nil, the op's own error, or ErrMultiAborted for ops undone by another's failure).
type OpResult struct {
	Path string
	Stat *Stat
	Err  error
}

// Multi runs ops atomically: all apply or none. The error is the first failing op's error (see the
// results for each op). A Multi retried after a connection loss may fail although its first attempt
// applied (e.g. NodeExists): use CheckOp guards to make transactions idempotent.
func (f *Framework) Multi(ctx context.Context, ops ...Op) (_ []OpResult, err error) {
	defer f.traceOp("multi", "", f.traceStart(), &err)
	reqs, err := f.multiRequests(ops)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, ErrNilContext
	}
	if f.closed.Load() {
		return nil, ErrClosed
	}
	var results []OpResult
	err = f.retry(ctx, func(ctx context.Context) error {
		res, err := call(f, ctx, func() ([]zk.MultiResponse, error) { return f.conn.Multi(reqs...) })
		if res == nil && err != nil {
			return err
		}
		results = f.multiResults(res)
		return err
	})
	return results, err
}

// multiRequests validates ops and converts them to go-zookeeper requests.
func (f *Framework) multiRequests(ops []Op) ([]any, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("%w: empty Multi", ErrInvalidOption)
	}
	reqs := make([]any, 0, len(ops))
	for i, op := range ops {
		req, err := f.multiRequest(op)
		if err != nil {
			return nil, fmt.Errorf("multi op %d: %w", i, err)
		}
		reqs = append(reqs, req)
	}
	return reqs, nil
}

func (f *Framework) multiRequest(op Op) (any, error) {
	if err := ValidatePath(op.path); err != nil {
		return nil, err
	}
	full := f.full(op.path)
	switch op.kind {
	case opCreate:
		data := op.data
		if data == nil {
			data = f.cfg.defaultData
		}
		flag, err := op.mode.flag()
		if err == nil && (op.mode == Container || op.mode.isTTL()) {
			err = fmt.Errorf("%w: mode %d inside Multi", ErrInvalidOption, op.mode)
		}
		if err != nil {
			return nil, err
		}
		if err := validateData(op.path, data); err != nil {
			return nil, err
		}
		return &zk.CreateRequest{Path: full, Data: data, Acl: f.cfg.acl.ForPath(full), Flags: flag}, nil
	case opDelete:
		return &zk.DeleteRequest{Path: full, Version: op.version}, nil
	case opSet:
		if err := validateData(op.path, op.data); err != nil {
			return nil, err
		}
		return &zk.SetDataRequest{Path: full, Data: op.data, Version: op.version}, nil
	case opCheck:
		return &zk.CheckVersionRequest{Path: full, Version: op.version}, nil
	}
	return nil, fmt.Errorf("%w: zero Op", ErrInvalidOption)
}

// multiResults converts go-zookeeper's per-op responses.
func (f *Framework) multiResults(res []zk.MultiResponse) []OpResult {
	out := make([]OpResult, len(res))
	for i, r := range res {
		out[i] = OpResult{Stat: r.Stat, Err: mapZKError(r.Error)}
		if r.String != "" {
			out[i].Path = f.rel(r.String)
		}
		if errors.Is(out[i].Err, ErrMultiAborted) {
			out[i].Stat = nil
		}
	}
	return out
}
