package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// errStale is the fenced resource refusing a token lower than one it saw.
var errStale = errors.New("stale fencing token refused")

// errOverlap means someone else wrote the resource while we held the lock:
// mutual exclusion was broken, in this process or another.
var errOverlap = errors.New("another holder wrote the resource during our hold")

// fence is the demo's protected resource, shared by every demo on the
// server: a znode holding "<token> <writer>" of the last write. It refuses
// tokens lower than the one it holds, as a fenced storage service would,
// and detects overlapping holders across processes: a holder's exit write
// is conditional on the version its entry write produced.
type fence struct {
	path                    string
	writes, stale, overlaps atomic.Int64
}

// ensure creates the resource node if it does not exist yet.
func (f *fence) ensure(ctx context.Context, fw *framework.Framework) error {
	_, err := fw.Create(ctx, f.path, []byte("0 nobody"), framework.CreatingParents())
	if err != nil && !errors.Is(err, framework.ErrNodeExists) {
		return fmt.Errorf("creating the fenced resource %s: %w", f.path, err)
	}
	return nil
}

// last reads the highest token the resource holds, with its version.
func (f *fence) last(ctx context.Context, fw *framework.Framework) (int64, int32, error) {
	data, st, err := fw.Get(ctx, f.path)
	if err != nil {
		return 0, 0, err
	}
	tok, _, _ := strings.Cut(string(data), " ")
	n, _ := strconv.ParseInt(tok, 10, 64)
	return n, st.Version, nil
}

// enter is a holder's first write: refused for a stale token, and done in a
// transaction guarded by the lease's node when lease is not nil. It returns
// the version the write produced, for exit.
func (f *fence) enter(ctx context.Context, fw *framework.Framework, lease *recipes.Lease, token int64, who string) (int32, error) {
	last, version, err := f.last(ctx, fw)
	if err != nil {
		return 0, err
	}
	if token < last {
		f.stale.Add(1)
		return 0, fmt.Errorf("%w: %d, the resource has seen %d", errStale, token, last)
	}
	return f.write(ctx, fw, lease, token, who, version)
}

// exit is a holder's last write, conditional on the version its entry
// produced: a mismatch proves an overlapping holder.
func (f *fence) exit(ctx context.Context, fw *framework.Framework, lease *recipes.Lease, token int64, who string, version int32) error {
	_, err := f.write(ctx, fw, lease, token, who, version)
	return err
}

func (f *fence) write(ctx context.Context, fw *framework.Framework, lease *recipes.Lease, token int64, who string, version int32) (int32, error) {
	var ops []framework.Op
	if lease != nil {
		ops = append(ops, lease.Guard())
	}
	ops = append(ops, framework.SetOp(f.path, []byte(fmt.Sprintf("%d %s", token, who)), version))
	res, err := fw.Multi(ctx, ops...)
	switch {
	case errors.Is(err, framework.ErrBadVersion):
		f.overlaps.Add(1)
		return 0, errOverlap
	case err != nil:
		return 0, err
	}
	f.writes.Add(1)
	return res[len(res)-1].Stat.Version, nil
}

// waitPast waits until the resource holds a token above token.
func (f *fence) waitPast(ctx context.Context, fw *framework.Framework, token int64) error {
	for {
		data, _, w, err := fw.GetW(ctx, f.path)
		if err != nil {
			return err
		}
		tok, _, _ := strings.Cut(string(data), " ")
		if n, _ := strconv.ParseInt(tok, 10, 64); n > token {
			return nil
		}
		if _, err := w.Wait(ctx); err != nil && !errors.Is(err, framework.ErrSessionInterrupted) {
			return err
		}
	}
}
