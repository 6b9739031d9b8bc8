package retry

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeTimer records every Start. If autoFire, a Start fires at once; otherwise it never
// fires, and each Start is announced on started.
type fakeTimer struct {
	mu       sync.Mutex
	autoFire bool
	starts   []time.Duration
	stops    int
	c        chan time.Time
	started  chan time.Duration
}

func newFakeTimer(autoFire bool) *fakeTimer {
	return &fakeTimer{autoFire: autoFire, c: make(chan time.Time, 1), started: make(chan time.Duration, 100)}
}

func (f *fakeTimer) Start(d time.Duration) {
	f.mu.Lock()
	f.starts = append(f.starts, d)
	f.mu.Unlock()
	if f.autoFire {
		f.c <- time.Time{}
	}
	f.started <- d
}

func (f *fakeTimer) Stop() {
	f.mu.Lock()
	f.stops++
	f.mu.Unlock()
}

func (f *fakeTimer) C() <-chan time.Time { return f.c }

func (f *fakeTimer) snapshot() ([]time.Duration, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.starts...), f.stops
}

var (
	errTransient = errors.New("transient")
	errFatal     = errors.New("fatal")
	errExpired   = errors.New("expired")
)

func classifyTest(err error) Class {
	switch {
	case errors.Is(err, errTransient):
		return Retryable
	case errors.Is(err, errExpired):
		return SessionExpired
	}
	return Permanent
}

// failing returns an op that fails with errs[i] on attempt i (the last error repeats),
// and succeeds if errs[i] is nil; *attempts counts the calls.
func failing(attempts *int, errs ...error) func(context.Context) error {
	return func(context.Context) error {
		i := min(*attempts, len(errs)-1)
		*attempts++
		return errs[i]
	}
}

func TestDoAttempts(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name         string
		p            Policy
		errs         []error
		wantErr      error
		wantAttempts int
		wantSleeps   int // timer Starts (zero sleeps do not start it)
	}{
		{"success first", NTimes(3, ms), []error{nil}, nil, 1, 0},
		{"NTimes(0) is 1 attempt", NTimes(0, ms), []error{errTransient}, errTransient, 1, 0},
		{"NTimes(3) is 4 attempts", NTimes(3, ms), []error{errTransient}, errTransient, 4, 3},
		{"OneTime is 2 attempts", OneTime(ms), []error{errTransient}, errTransient, 2, 1},
		{"zero sleep never starts the timer", NTimes(2, 0), []error{errTransient}, errTransient, 3, 0},
		{"success after retries", NTimes(5, ms), []error{errTransient, errTransient, nil}, nil, 3, 2},
		{"permanent stops at once", NTimes(5, ms), []error{errFatal}, errFatal, 1, 0},
		{"permanent after retryable", NTimes(5, ms), []error{errTransient, errFatal}, errFatal, 2, 1},
		{"session expired retried", NTimes(2, ms), []error{errExpired}, errExpired, 3, 2},
		{"SessionFailed refuses expiry", SessionFailed(NTimes(5, ms)), []error{errTransient, errExpired}, errExpired, 2, 1},
		{"exponential 29 cap", ExponentialBackoff(ms, 100, ms), []error{errTransient}, errTransient, 30, 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timer := newFakeTimer(true)
			attempts := 0
			var notified int
			err := Do(context.Background(), tt.p, classifyTest, failing(&attempts, tt.errs...),
				WithTimer(timer), WithNotify(func(error, time.Duration) { notified++ }))
			if err != tt.wantErr { // the op's own error, not a wrapper
				t.Fatalf("Do = %v, want %v", err, tt.wantErr)
			}
			if attempts != tt.wantAttempts {
				t.Fatalf("attempts = %d, want %d", attempts, tt.wantAttempts)
			}
			starts, stops := timer.snapshot()
			if len(starts) != tt.wantSleeps {
				t.Fatalf("timer starts = %v, want %d", starts, tt.wantSleeps)
			}
			if notified != tt.wantAttempts-1 { // once before every retry, never for the last failure
				t.Fatalf("notified %d times, want %d", notified, tt.wantAttempts-1)
			}
			if stops != 1 {
				t.Fatalf("timer stopped %d times, want 1", stops)
			}
		})
	}
}

func TestDoNotifySeesSleeps(t *testing.T) {
	timer := newFakeTimer(true)
	attempts := 0
	var got []time.Duration
	var gotErrs []error
	err := Do(context.Background(), NTimes(2, 7*time.Millisecond), classifyTest, failing(&attempts, errTransient),
		WithTimer(timer), WithNotify(func(err error, next time.Duration) {
			got = append(got, next)
			gotErrs = append(gotErrs, err)
		}))
	if !errors.Is(err, errTransient) {
		t.Fatalf("Do = %v", err)
	}
	starts, _ := timer.snapshot()
	want := []time.Duration{7 * time.Millisecond, 7 * time.Millisecond}
	if !equalDurations(got, want) || !equalDurations(starts, want) {
		t.Fatalf("notified %v, timer %v, want %v", got, starts, want)
	}
	for _, e := range gotErrs {
		if e != errTransient {
			t.Fatalf("notify err = %v", e)
		}
	}
}

// TestDoCancelWhileSleeping proves Do returns on cancel although the timer never fires.
func TestDoCancelWhileSleeping(t *testing.T) {
	timer := newFakeTimer(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attempts := 0
	done := make(chan error, 1)
	go func() {
		done <- Do(ctx, Forever(time.Hour), classifyTest, failing(&attempts, errTransient), WithTimer(timer))
	}()
	select {
	case d := <-timer.started:
		if d != time.Hour {
			t.Fatalf("sleep %v, want 1h", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Do never started to sleep")
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Do did not return after cancel")
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errTransient) {
		t.Fatalf("Do = %v, want Canceled and errTransient", err)
	}
	if attempts != 1 {
		t.Fatalf("attempts = %d, want 1", attempts)
	}
	if _, stops := timer.snapshot(); stops != 1 {
		t.Fatalf("timer stopped %d times, want 1", stops)
	}
}

func TestDoContextCause(t *testing.T) {
	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	attempts := 0
	op := func(context.Context) error {
		attempts++
		cancel(cause) // the context ends during the attempt
		return errTransient
	}
	err := Do(ctx, Forever(time.Hour), classifyTest, op, WithTimer(newFakeTimer(false)))
	for _, want := range []error{context.Canceled, cause, errTransient} {
		if !errors.Is(err, want) {
			t.Fatalf("Do = %v, want errors.Is %v", err, want)
		}
	}
	if attempts != 1 {
		t.Fatalf("attempts = %d, want 1", attempts)
	}
	const msg = "retry: context canceled: shutting down (last error: transient)"
	if err.Error() != msg {
		t.Fatalf("message %q, want %q", err.Error(), msg)
	}
}

func TestDoDeadlineWithRealTimer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	attempts := 0
	err := Do(ctx, Forever(time.Millisecond), classifyTest, failing(&attempts, errTransient))
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errTransient) {
		t.Fatalf("Do = %v, want DeadlineExceeded and errTransient", err)
	}
	if attempts < 2 {
		t.Fatalf("attempts = %d, want >= 2 (real timer fired)", attempts)
	}
}

func TestDoPermanentKeepsOwnErrorAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	op := func(context.Context) error { cancel(); return errFatal }
	if err := Do(ctx, NTimes(3, time.Hour), classifyTest, op); err != errFatal {
		t.Fatalf("Do = %v, want errFatal itself", err)
	}
}

func TestDoRefusals(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	ok := func(context.Context) error { t.Error("op ran"); return nil }
	tests := []struct {
		name     string
		ctx      context.Context
		p        Policy
		classify func(error) Class
		op       func(context.Context) error
		want     error
	}{
		{"invalid policy", context.Background(), NTimes(-1, 0), classifyTest, ok, ErrInvalidPolicy},
		{"nil policy", context.Background(), nil, classifyTest, ok, ErrInvalidPolicy},
		{"nil classify", context.Background(), OneTime(0), nil, ok, ErrInvalidArgument},
		{"nil op", context.Background(), OneTime(0), classifyTest, nil, ErrInvalidArgument},
		{"nil ctx", nil, OneTime(0), classifyTest, ok, ErrInvalidArgument}, //nolint:staticcheck // testing the guard
		{"ctx already canceled", canceled, OneTime(0), classifyTest, ok, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Do(tt.ctx, tt.p, tt.classify, tt.op, nil); !errors.Is(err, tt.want) {
				t.Fatalf("Do = %v, want %v", err, tt.want)
			}
		})
	}
}
