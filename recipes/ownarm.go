package recipes

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// ownArm sets the own-node watch (ownwatch.go) of a grant decided on a listing, where no
// own-node check set one, on the goroutine of the burst that granted (burst.go), right after it
// handed the grant over: no goroutine of the lease's own for it (issue 27). Whichever of the
// getData and the lease made of the grant comes second wires the watch to the lease. A grant
// that no lease is made of (its caller failed it) leaves the watch to the node's delete.
type ownArm struct {
	ctx    context.Context // the lease's context (newNode takes it): its end stops the retries
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	n     *node // the lease, once made
	ended bool  // the getData ended before the lease was made, with w and err
	w     *framework.Watch
	err   error
}

// newOwnArm makes the arm of a grant, with the context of the lease to come.
func newOwnArm() *ownArm {
	a := &ownArm{}
	a.ctx, a.cancel = context.WithCancelCause(context.Background())
	return a
}

// run sets the data watch on p, our node, and hands it to the lease. It yields once first: a
// holder that lets go at once (no critical section) then usually has before the getData is
// sent, which it then is not (the lease's end ended a.ctx), as with a goroutine of its own.
func (a *ownArm) run(fw *framework.Framework, p string) {
	runtime.Gosched()
	var w *framework.Watch
	err := a.ctx.Err()
	if err == nil {
		_, _, w, err = fw.GetW(framework.Inline(a.ctx), p) // inline: this goroutine is the watch's own
	}
	a.mu.Lock()
	n := a.n
	if n == nil {
		a.ended, a.w, a.err = true, w, err
	}
	a.mu.Unlock()
	if n != nil {
		n.armed(w, err)
	}
}

// attach hands the arm's watch to n, the lease made of the grant: now if the getData has ended,
// else when it does.
func (a *ownArm) attach(n *node) {
	a.mu.Lock()
	a.n = n
	ended, w, err := a.ended, a.w, a.err
	a.mu.Unlock()
	if ended {
		n.armed(w, err)
	}
}

// armed wires the outcome of the getData that set the data watch on our node, as armOwn does:
// a node already gone is deleted; after other failures (but the lease's or the framework's end)
// armOwn sets it again, at the retry policy's pace.
func (n *node) armed(w *framework.Watch, err error) {
	switch {
	case err == nil:
		n.onOwnEvent(w)
	case errors.Is(err, framework.ErrNoNode):
		n.deleted()
	case n.ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
	default:
		n.fw.Go(n.armOwn)
	}
}
