package retry

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// fixedPolicy is NTimes, OneTime and Forever: a constant sleep, a bounded or unbounded
// number of retries.
type fixedPolicy struct {
	sleep      time.Duration
	maxRetries int // < 0: unlimited
	err        error
}

// NTimes is Curator's RetryNTimes: at most n retries (n+1 attempts), sleeping sleep before
// each. A zero sleep retries at once. Invalid: n < 0, sleep < 0.
func NTimes(n int, sleep time.Duration) Policy {
	p := fixedPolicy{sleep: sleep, maxRetries: n}
	switch {
	case n < 0:
		p.err = invalidf("NTimes: n %d, want >= 0", n)
	case sleep < 0:
		p.err = invalidf("NTimes: sleep %v, want >= 0", sleep)
	}
	return p
}

// OneTime is Curator's RetryOneTime: NTimes(1, sleep). Invalid: sleep < 0.
func OneTime(sleep time.Duration) Policy {
	p := fixedPolicy{sleep: sleep, maxRetries: 1}
	if sleep < 0 {
		p.err = invalidf("OneTime: sleep %v, want >= 0", sleep)
	}
	return p
}

// Forever is Curator's RetryForever: unlimited retries, sleeping interval before each;
// only Do's context ends it. Invalid: interval <= 0 (as in Curator; it would spin).
func Forever(interval time.Duration) Policy {
	p := fixedPolicy{sleep: interval, maxRetries: -1}
	if interval <= 0 {
		p.err = invalidf("Forever: interval %v, want > 0", interval)
	}
	return p
}

// NewBackOff returns a fresh constant BackOff.
func (p fixedPolicy) NewBackOff() backoff.BackOff {
	if p.err != nil {
		return stopped()
	}
	return &fixedBackOff{sleep: p.sleep, maxRetries: p.maxRetries}
}

// Allows reports true for Retryable and SessionExpired when the policy is valid.
func (p fixedPolicy) Allows(c Class) bool { return p.err == nil && retryableClass(c) }

// Validate returns the constructor's argument error, or nil.
func (p fixedPolicy) Validate() error { return p.err }

// fixedBackOff returns sleep maxRetries times (for ever if maxRetries < 0), then Stop.
// Not safe for concurrent use.
type fixedBackOff struct {
	sleep               time.Duration
	maxRetries, retries int
}

// NextBackOff returns the constant sleep, or backoff.Stop once the retries are used up.
func (b *fixedBackOff) NextBackOff() time.Duration {
	if b.maxRetries >= 0 {
		if b.retries >= b.maxRetries {
			return backoff.Stop
		}
		b.retries++
	}
	return b.sleep
}

// Reset starts the retry count again from 0.
func (b *fixedBackOff) Reset() { b.retries = 0 }
