package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Continue after a first attempt made by the caller does what Do does from that attempt on:
// the same error, attempts, sleeps and notifications, for every case of TestDoAttempts whose
// first attempt fails (one that succeeds never calls Continue).
func TestContinueIsDoAfterItsFirstAttempt(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name string
		p    Policy
		errs []error
	}{
		{"NTimes(0)", NTimes(0, ms), []error{errTransient}},
		{"NTimes(3)", NTimes(3, ms), []error{errTransient}},
		{"OneTime", OneTime(ms), []error{errTransient}},
		{"zero sleep", NTimes(2, 0), []error{errTransient}},
		{"success after retries", NTimes(5, ms), []error{errTransient, errTransient, nil}},
		{"permanent at once", NTimes(5, ms), []error{errFatal}},
		{"permanent after retryable", NTimes(5, ms), []error{errTransient, errFatal}},
		{"session expired", NTimes(2, ms), []error{errExpired}},
		{"SessionFailed", SessionFailed(NTimes(5, ms)), []error{errTransient, errExpired}},
		{"exponential cap", ExponentialBackoff(ms, 100, ms), []error{errTransient}},
	}
	type outcome struct {
		err                       error
		attempts, notified, stops int
		sleeps                    []time.Duration
	}
	run := func(p Policy, errs []error, cont bool) outcome {
		timer := newFakeTimer(true)
		var o outcome
		op := failing(&o.attempts, errs...)
		opts := []DoOption{WithTimer(timer), WithNotify(func(error, time.Duration) { o.notified++ })}
		if cont {
			o.err = Continue(context.Background(), p, classifyTest, op, op(context.Background()), opts...)
		} else {
			o.err = Do(context.Background(), p, classifyTest, op, opts...)
		}
		o.sleeps, o.stops = timer.snapshot()
		return o
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			do, cont := run(tt.p, tt.errs, false), run(tt.p, tt.errs, true)
			if cont.err != do.err || cont.attempts != do.attempts || cont.notified != do.notified ||
				cont.stops != do.stops || len(cont.sleeps) != len(do.sleeps) {
				t.Fatalf("Continue: %+v\nDo:       %+v", cont, do)
			}
			for i := range do.sleeps {
				if d, c := do.sleeps[i], cont.sleeps[i]; d != c && tt.name != "exponential cap" { // jitter
					t.Fatalf("sleep %d: Continue %v, Do %v", i, c, d)
				}
			}
		})
	}
}

// Continue's edges: a nil error needs nothing, a context that ended during the caller's
// attempt interrupts with both errors, and bad arguments are refused as Do refuses them.
func TestContinueEdges(t *testing.T) {
	never := func(context.Context) error { t.Fatal("op ran"); return nil }
	if err := Continue(context.Background(), NTimes(3, time.Millisecond), classifyTest, never, nil); err != nil {
		t.Fatalf("Continue(nil err) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Continue(ctx, NTimes(3, time.Millisecond), classifyTest, never, errTransient)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errTransient) {
		t.Fatalf("Continue after the context ended = %v, want context.Canceled and the attempt's error", err)
	}
	if err := Continue(context.Background(), NTimes(3, time.Millisecond), classifyTest, never, errFatal); err != errFatal {
		t.Fatalf("Continue(permanent) = %v, want the error itself", err)
	}
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"nil policy", ErrInvalidPolicy, func() error { return Continue(context.Background(), nil, classifyTest, never, errTransient) }},
		{"invalid policy", ErrInvalidPolicy, func() error {
			return Continue(context.Background(), NTimes(-1, 0), classifyTest, never, errTransient)
		}},
		{"nil ctx", ErrInvalidArgument, func() error {
			return Continue(nil, NTimes(1, 0), classifyTest, never, errTransient) //nolint:staticcheck // the refusal under test
		}},
		{"nil classify", ErrInvalidArgument, func() error { return Continue(context.Background(), NTimes(1, 0), nil, never, errTransient) }},
		{"nil op", ErrInvalidArgument, func() error { return Continue(context.Background(), NTimes(1, 0), classifyTest, nil, errTransient) }},
	} {
		if err := tc.call(); !errors.Is(err, tc.err) {
			t.Errorf("%s: Continue = %v, want %v", tc.name, err, tc.err)
		}
	}
}
