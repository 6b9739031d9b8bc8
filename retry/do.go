package retry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// ErrInvalidArgument is returned by Do and Continue for a nil context, classify or op.
var ErrInvalidArgument = errors.New("retry: invalid argument")

// DoOption configures one call of Do.
type DoOption func(*doConfig)

type doConfig struct {
	timer  backoff.Timer
	notify func(err error, next time.Duration)
}

// WithTimer makes Do (and Continue) sleep on t instead of a real timer, so tests never sleep for real.
// Do calls t.Start(d) before each non-zero sleep, waits on t.C() or the context, and calls
// t.Stop() when it returns. A Timer is not safe for concurrent use: give each Do its own.
func WithTimer(t backoff.Timer) DoOption {
	return func(c *doConfig) { c.timer = t }
}

// WithNotify makes Do (and Continue) call fn(err, next) after each failed attempt that will be retried,
// before sleeping next. It is not called for the failure that Do returns.
func WithNotify(fn func(err error, next time.Duration)) DoOption {
	return func(c *doConfig) { c.notify = fn }
}

// Do runs op until it succeeds, classify says Permanent, the policy refuses, or ctx ends.
//
// After a failure it asks p.Allows(classify(err)), then the operation's BackOff (made by
// p.NewBackOff) for the sleep, and sleeps honouring ctx. When it gives up it returns op's
// last error itself, unwrapped. When ctx ends while sleeping, or ends while a retryable
// failure is in hand, it returns at once with an error that errors.Is both ctx.Err() (and
// context.Cause(ctx)) and op's last error. If ctx has ended before the first attempt, op is
// not run and ctx.Err() is returned. An invalid policy returns its ErrInvalidPolicy error
// without running op; a nil ctx, classify or op returns ErrInvalidArgument.
//
// Do is safe for concurrent use with the same Policy; options must not be shared.
func Do(ctx context.Context, p Policy, classify func(error) Class, op func(ctx context.Context) error, opts ...DoOption) error {
	if err := Validate(p); err != nil {
		return err
	}
	if ctx == nil || classify == nil || op == nil {
		return argError(ctx == nil, classify == nil)
	}
	cfg := configure(opts)
	if err := ctx.Err(); err != nil {
		return err
	}
	defer cfg.stopTimer()
	return loop(ctx, p, classify, op, &cfg)
}

// Continue is Do for a caller that made the first attempt itself, outside Do, and got err
// (not nil): it goes on from that failure exactly as Do would have after its first attempt,
// retrying op, and returns what Do would have. A caller whose first attempt usually succeeds
// pays none of Do's per-call checks then (issue 27: the Framework makes each request this way).
// The caller must have checked ctx.Err() before its attempt, as Do does, and should hold a
// policy it validated: Continue checks its arguments as Do does, but only after that attempt
// ran, and an invalid policy then returns its error without retrying. A nil err returns nil
// at once, with no check.
func Continue(ctx context.Context, p Policy, classify func(error) Class, op func(ctx context.Context) error, err error, opts ...DoOption) error {
	if err == nil {
		return nil
	}
	if verr := Validate(p); verr != nil {
		return verr
	}
	if ctx == nil || classify == nil || op == nil {
		return argError(ctx == nil, classify == nil)
	}
	cfg := configure(opts)
	defer cfg.stopTimer()
	return loopFrom(ctx, p, classify, op, &cfg, err)
}

// configure applies opts. Options write through a pointer: they get a heap copy, and the
// result stays on the caller's stack; no option, no allocation.
func configure(opts []DoOption) doConfig {
	if len(opts) == 0 {
		return doConfig{}
	}
	c := new(doConfig)
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return *c
}

// loop is the body of Do once its arguments are checked. The policy's BackOff is made at the
// first failure only: most operations succeed at once and then cost no allocation for it.
func loop(ctx context.Context, p Policy, classify func(error) Class, op func(context.Context) error, cfg *doConfig) error {
	err := op(ctx)
	if err == nil {
		return nil
	}
	return loopFrom(ctx, p, classify, op, cfg, err)
}

// loopFrom is loop after a first attempt that failed with err.
func loopFrom(ctx context.Context, p Policy, classify func(error) Class, op func(context.Context) error, cfg *doConfig, err error) error {
	var b backoff.BackOff
	made := false
	for ; ; err = op(ctx) {
		if err == nil {
			return nil
		}
		if !p.Allows(classify(err)) {
			return err
		}
		if ctx.Err() != nil {
			return interrupted(ctx, err)
		}
		if !made {
			b, made = p.NewBackOff(), true
		}
		next := backoff.Stop
		if b != nil {
			next = b.NextBackOff()
		}
		if next < 0 { // backoff.Stop
			return err
		}
		if cfg.notify != nil {
			cfg.notify(err, next)
		}
		if !cfg.sleep(ctx, next) {
			return interrupted(ctx, err)
		}
	}
}

// sleep waits d on the configured timer; it returns false if ctx ended first.
func (c *doConfig) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	if c.timer == nil {
		c.timer = &realTimer{}
	}
	c.timer.Start(d)
	select {
	case <-c.timer.C():
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *doConfig) stopTimer() {
	if c.timer != nil {
		c.timer.Stop()
	}
}

func argError(nilCtx, nilClassify bool) error {
	switch {
	case nilCtx:
		return fmt.Errorf("%w: nil context", ErrInvalidArgument)
	case nilClassify:
		return fmt.Errorf("%w: nil classify", ErrInvalidArgument)
	}
	return fmt.Errorf("%w: nil op", ErrInvalidArgument)
}

// realTimer is a backoff.Timer on a time.Timer.
type realTimer struct {
	t *time.Timer
}

func (r *realTimer) Start(d time.Duration) {
	if r.t == nil {
		r.t = time.NewTimer(d)
		return
	}
	r.t.Reset(d) // Go 1.23+: Reset drops a stale value, no drain needed
}

func (r *realTimer) Stop() {
	if r.t != nil {
		r.t.Stop()
	}
}

func (r *realTimer) C() <-chan time.Time { return r.t.C }
