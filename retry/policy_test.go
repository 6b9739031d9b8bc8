package retry

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// drain calls NextBackOff until Stop or limit values, and returns the values before Stop.
func drain(t *testing.T, b backoff.BackOff, limit int) []time.Duration {
	t.Helper()
	var got []time.Duration
	for range limit {
		d := b.NextBackOff()
		if d == backoff.Stop {
			return got
		}
		got = append(got, d)
	}
	return got
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestExponentialSequence(t *testing.T) {
	highest := func(n int64) int64 { return n - 1 }
	lowest := func(int64) int64 { return 0 }
	tests := []struct {
		name       string
		base, cap  time.Duration
		maxRetries int
		intn       func(int64) int64
		want       []time.Duration
	}{
		{"lowest draw is base", 10 * time.Millisecond, DefaultMaxSleep, 3, lowest,
			[]time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}},
		{"highest draw is base*(2^(n+1)-1)", 10 * time.Millisecond, DefaultMaxSleep, 4, highest,
			[]time.Duration{10 * time.Millisecond, 30 * time.Millisecond, 70 * time.Millisecond, 150 * time.Millisecond}},
		{"pinned to maxSleep", 10 * time.Millisecond, 50 * time.Millisecond, 4, highest,
			[]time.Duration{10 * time.Millisecond, 30 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}},
		{"zero retries", time.Second, DefaultMaxSleep, 0, highest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &exponentialBackOff{base: tt.base, maxSleep: tt.cap, maxRetries: tt.maxRetries, intn: tt.intn}
			if got := drain(t, b, 100); !equalDurations(got, tt.want) {
				t.Fatalf("sleeps = %v, want %v", got, tt.want)
			}
			b.Reset()
			if got := drain(t, b, 100); !equalDurations(got, tt.want) {
				t.Fatalf("after Reset sleeps = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExponentialDrawBounds(t *testing.T) {
	var bounds []int64
	b := &exponentialBackOff{base: time.Millisecond, maxSleep: DefaultMaxSleep, maxRetries: 5,
		intn: func(n int64) int64 { bounds = append(bounds, n); return 0 }}
	drain(t, b, 100)
	want := []int64{2, 4, 8, 16, 32}
	if len(bounds) != len(want) {
		t.Fatalf("bounds = %v, want %v", bounds, want)
	}
	for i := range want {
		if bounds[i] != want[i] {
			t.Fatalf("bounds = %v, want %v", bounds, want)
		}
	}
}

func TestExponentialRetriesCappedAt29(t *testing.T) {
	for _, p := range []Policy{
		ExponentialBackoff(time.Millisecond, 1000),
		ExponentialBackoff(time.Millisecond, math.MaxInt, time.Second),
		BoundedExponentialBackoff(time.Millisecond, time.Second, 30),
	} {
		if err := Validate(p); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		got := drain(t, p.NewBackOff(), 1000)
		if len(got) != MaxExponentialRetries {
			t.Fatalf("%d retries, want %d", len(got), MaxExponentialRetries)
		}
		for n, d := range got {
			hi := time.Millisecond * time.Duration(int64(1)<<(n+1)-1)
			if d < time.Millisecond || d > hi || d > DefaultMaxSleep {
				t.Fatalf("retry %d slept %v, want in [1ms, %v]", n, d, hi)
			}
		}
	}
}

func TestCuratorSleepNoOverflow(t *testing.T) {
	highest := func(n int64) int64 { return n - 1 }
	tests := []struct {
		name           string
		base, maxSleep time.Duration
		n              int
		want           time.Duration
	}{
		{"n=28 default cap", time.Second, DefaultMaxSleep, 28, DefaultMaxSleep},
		{"n=29 huge base", time.Hour, DefaultMaxSleep, 29, DefaultMaxSleep},
		{"n=1000", time.Millisecond, 5 * time.Second, 1000, 5 * time.Second},
		{"max duration cap", time.Duration(math.MaxInt64 / 2), time.Duration(math.MaxInt64), 62, time.Duration(math.MaxInt64)},
		{"negative n is retry 0", 3 * time.Millisecond, time.Second, -5, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := curatorSleep(tt.base, tt.maxSleep, tt.n, highest); got != tt.want {
				t.Fatalf("curatorSleep = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFixedSequences(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name string
		p    Policy
		want []time.Duration
	}{
		{"NTimes 3", NTimes(3, 10*ms), []time.Duration{10 * ms, 10 * ms, 10 * ms}},
		{"NTimes 0", NTimes(0, 10*ms), nil},
		{"NTimes zero sleep", NTimes(2, 0), []time.Duration{0, 0}},
		{"OneTime", OneTime(5 * ms), []time.Duration{5 * ms}},
		{"SessionFailed NTimes", SessionFailed(NTimes(2, ms)), []time.Duration{ms, ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.p.NewBackOff()
			if got := drain(t, b, 100); !equalDurations(got, tt.want) {
				t.Fatalf("sleeps = %v, want %v", got, tt.want)
			}
			b.Reset()
			if got := drain(t, b, 100); !equalDurations(got, tt.want) {
				t.Fatalf("after Reset sleeps = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestForeverNeverStops(t *testing.T) {
	b := Forever(time.Second).NewBackOff()
	for i := range 10000 {
		if d := b.NextBackOff(); d != time.Second {
			t.Fatalf("retry %d: %v, want 1s", i, d)
		}
	}
}

func TestUntilElapsed(t *testing.T) {
	now := time.Unix(1000, 0)
	p := UntilElapsed(time.Second, 300*time.Millisecond).(elapsedPolicy)
	p.now = func() time.Time { return now }
	b := p.NewBackOff()
	for _, step := range []struct {
		advance time.Duration
		want    time.Duration
	}{
		{0, 300 * time.Millisecond},
		{300 * time.Millisecond, 300 * time.Millisecond},
		{699 * time.Millisecond, 300 * time.Millisecond}, // 999ms elapsed: still allowed
		{time.Millisecond, backoff.Stop},                 // 1s elapsed: refused without a sleep
	} {
		now = now.Add(step.advance)
		if got := b.NextBackOff(); got != step.want {
			t.Fatalf("at %v: %v, want %v", now, got, step.want)
		}
	}
	b.Reset()
	if got := b.NextBackOff(); got != 300*time.Millisecond {
		t.Fatalf("after Reset: %v, want 300ms", got)
	}
}

func TestAllows(t *testing.T) {
	policies := map[string]Policy{
		"Exponential": ExponentialBackoff(time.Millisecond, 3),
		"Bounded":     BoundedExponentialBackoff(time.Millisecond, time.Second, 3),
		"NTimes":      NTimes(1, 0),
		"OneTime":     OneTime(0),
		"UntilElapse": UntilElapsed(time.Second, 0),
		"Forever":     Forever(time.Second),
	}
	for name, p := range policies {
		for _, c := range []struct {
			class      Class
			want, sess bool
		}{
			{Permanent, false, false},
			{Retryable, true, true},
			{SessionExpired, true, false},
			{Class(42), false, false},
		} {
			if got := p.Allows(c.class); got != c.want {
				t.Errorf("%s.Allows(%v) = %v, want %v", name, c.class, got, c.want)
			}
			if got := SessionFailed(p).Allows(c.class); got != c.sess {
				t.Errorf("SessionFailed(%s).Allows(%v) = %v, want %v", name, c.class, got, c.sess)
			}
		}
	}
}

func TestInvalidPolicies(t *testing.T) {
	tests := map[string]Policy{
		"nil":                       nil,
		"exponential zero base":     ExponentialBackoff(0, 3),
		"exponential negative n":    ExponentialBackoff(time.Millisecond, -1),
		"exponential zero maxSleep": ExponentialBackoff(time.Millisecond, 3, 0),
		"exponential two maxSleeps": ExponentialBackoff(time.Millisecond, 3, time.Second, time.Second),
		"bounded negative base":     BoundedExponentialBackoff(-time.Millisecond, time.Second, 3),
		"bounded zero maxSleep":     BoundedExponentialBackoff(time.Millisecond, 0, 3),
		"bounded negative n":        BoundedExponentialBackoff(time.Millisecond, time.Second, -3),
		"NTimes negative n":         NTimes(-1, time.Millisecond),
		"NTimes negative sleep":     NTimes(1, -time.Millisecond),
		"OneTime negative sleep":    OneTime(-1),
		"UntilElapsed zero max":     UntilElapsed(0, time.Millisecond),
		"UntilElapsed neg sleep":    UntilElapsed(time.Second, -1),
		"Forever zero":              Forever(0),
		"SessionFailed nil":         SessionFailed(nil),
		"SessionFailed invalid":     SessionFailed(NTimes(-1, 0)),
	}
	for name, p := range tests {
		t.Run(name, func(t *testing.T) {
			err := Validate(p)
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("Validate = %v, want ErrInvalidPolicy", err)
			}
			if p == nil {
				return
			}
			if d := p.NewBackOff().NextBackOff(); d != backoff.Stop {
				t.Errorf("NewBackOff().NextBackOff() = %v, want Stop", d)
			}
			if p.Allows(Retryable) {
				t.Errorf("Allows(Retryable) = true on an invalid policy")
			}
		})
	}
}

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{Permanent: "Permanent", Retryable: "Retryable",
		SessionExpired: "SessionExpired", Class(7): "Class(7)"} {
		if got := c.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(c), got, want)
		}
	}
}
