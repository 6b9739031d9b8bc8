package framework

import (
	"context"
	"fmt"
)

// WithCheck returns a context that is ctx, except that its Done and Err first call check. It is
// for a context that ends on a clock that no timer may have acted on yet: a session epoch's
// deadline right after the process resumed from a pause, before the runtime has run its overdue
// timers. check ends ctx (cancels it or a parent) if it is due; it must be cheap, as Done is
// called in hot select loops (an epoch's check reads the clock once). Value, Deadline and
// context.Cause are ctx's own; a context derived from the result is cancelled with ctx, but its
// own Done and Err do not call check. A nil check returns ctx.
func WithCheck(ctx context.Context, check func()) context.Context {
	if check == nil {
		return ctx
	}
	return checkedContext{Context: ctx, check: check}
}

// checkedContext is WithCheck's context. Its Done returns ctx's own channel, so the context
// package still cancels children of it directly, without a goroutine.
type checkedContext struct {
	context.Context
	check func()
}

func (c checkedContext) Done() <-chan struct{} {
	c.check()
	return c.Context.Done()
}

func (c checkedContext) Err() error {
	c.check()
	return c.Context.Err()
}

func (c checkedContext) String() string { return fmt.Sprintf("%v.WithCheck", c.Context) }
