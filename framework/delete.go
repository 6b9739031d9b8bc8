package framework

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
)

// DeleteOption configures Delete.
type DeleteOption func(*deleteConfig)

type deleteConfig struct {
	version    int32
	guaranteed bool
}

// WithVersion deletes only if the node's version matches (default -1: any).
func WithVersion(v int32) DeleteOption { return func(c *deleteConfig) { c.version = v } }

// Guaranteed keeps retrying the delete in the background, for as long as the Framework is open,
// when it fails retryably or ctx ends (Curator's guaranteed delete). The caller still gets the error.
func Guaranteed() DeleteOption { return func(c *deleteConfig) { c.guaranteed = true } }

// Delete deletes a node (ErrNoNode when absent, ErrBadVersion, ErrNotEmpty). On ctx end it returns
// ctx's error; the delete may still happen on the server (and with Guaranteed() it will be retried).
func (f *Framework) Delete(ctx context.Context, p string, opts ...DeleteOption) (err error) {
	defer f.traceOp("delete", p, f.traceStart(), &err)
	dc := deleteOptions(opts)
	if err := f.check(ctx, p, true); err != nil {
		return err
	}
	full := f.full(p)
	err = f.retry(ctx, func(ctx context.Context) error { return f.deleteOnce(ctx, full, dc.version) })
	if err != nil && dc.guaranteed && (ctx.Err() != nil || f.classify(err) != retry.Permanent) {
		f.log.Info("framework: delete failed, retrying in the background", "path", full, "err", err)
		f.deleteInBackground(full, dc.version)
	}
	return err
}

// deleteOptions applies opts to the defaults. Options write through a pointer: they get a heap
// copy, and the result stays on the caller's stack, so a Delete with none allocates nothing for
// them (issue 27).
func deleteOptions(opts []DeleteOption) deleteConfig {
	if len(opts) == 0 {
		return deleteConfig{version: -1}
	}
	dc := &deleteConfig{version: -1}
	for _, o := range opts {
		o(dc)
	}
	return *dc
}

func (f *Framework) deleteOnce(ctx context.Context, full string, version int32) error {
	_, err := callWith(f, ctx, deleteArgs{f.conn, full, version}, func(a deleteArgs) (struct{}, error) {
		return struct{}{}, a.conn.Delete(a.full, a.version)
	})
	return err
}

// deleteArgs is a delete request's argument (callWith).
type deleteArgs struct {
	conn    *zk.Conn
	full    string
	version int32
}

// deleteInBackground deletes a server path on a background goroutine until it succeeds, the node is
// gone, a permanent error occurs, or the Framework closes; the channel it returns closes then.
func (f *Framework) deleteInBackground(full string, version int32) <-chan struct{} {
	if !f.enter() {
		return closedChan
	}
	f.deletes.add() // counted before the goroutine runs: Shutdown sees it at once
	done := make(chan struct{})
	go func() {
		defer f.bg.exit()
		defer f.deletes.done()
		defer close(done)
		f.deleteGuaranteed(f.bgCtx, full, version)
	}()
	return done
}

// deleteGuaranteed retries the delete of a server path under the policy, round after round, until
// done (NoNode is success), a permanent error, or ctx ends. Each round is traced as a "delete"
// operation, as Delete is: a tracer sees every delete request the framework sends.
func (f *Framework) deleteGuaranteed(ctx context.Context, full string, version int32) {
	for ctx.Err() == nil {
		start := f.traceStart()
		err := f.retry(ctx, func(ctx context.Context) error { return f.deleteOnce(ctx, full, version) })
		f.traceOp("delete", f.rel(full), start, &err)
		switch {
		case err == nil || errors.Is(err, zk.ErrNoNode):
			f.log.Debug("framework: guaranteed delete done", "path", full)
			return
		case ctx.Err() == nil && f.classify(err) == retry.Permanent:
			f.log.Warn("framework: guaranteed delete gave up", "path", full, "err", err)
			return
		}
		pause(ctx, f.cfg.connTimeout/5)
	}
}

// pause sleeps for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
