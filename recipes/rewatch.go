package recipes

import (
	"context"
	"log/slog"
	"time"

	"github.com/zkrecipes/zkrecipes/retry"
)

// rewatch paces a watch loop that must set its watch again whatever fails (NoAuth after another
// client removed READ from the node, a partition that outlasted the retry policy): it waits the
// framework retry policy's delays (retry.Pacer) instead of spinning, and warns once per streak
// of failures that it cannot watch, and once that it watches again. Not safe for concurrent use.
type rewatch struct {
	log    *slog.Logger
	pacer  *retry.Pacer
	what   string // what the watch is for, in words
	path   string
	wake   <-chan struct{} // if not nil, ends a wait early (a connection state changed, say)
	warned bool
}

func newRewatch(log *slog.Logger, policy retry.Policy, what, path string) *rewatch {
	return &rewatch{log: log, pacer: retry.NewPacer(policy), what: what, path: path}
}

// failed reports err, once per streak, and waits the next delay (or a wake); false when ctx
// ended first.
func (r *rewatch) failed(ctx context.Context, err error) bool {
	if !r.warned {
		r.warned = true
		r.log.Warn("recipes: cannot watch "+r.what+"; trying again under the retry policy", "path", r.path, "err", err)
	}
	t := time.NewTimer(r.pacer.Next())
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// ok records a watch set: the next failure starts the policy's delays over.
func (r *rewatch) ok() {
	if r.warned {
		r.warned = false
		r.log.Info("recipes: watching "+r.what+" again", "path", r.path)
	}
	r.pacer.Reset()
}
