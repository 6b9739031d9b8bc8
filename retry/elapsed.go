package retry

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// elapsedPolicy is UntilElapsed.
type elapsedPolicy struct {
	max, sleep time.Duration
	now        func() time.Time // injectable for tests
	err        error
}

// UntilElapsed is Curator's RetryUntilElapsed: retry, sleeping sleep before each retry,
// while less than max has elapsed since the BackOff was made (Do makes it just before the
// first attempt). The elapsed time is checked before sleeping, so once max has passed it
// refuses at once; Curator sleeps once more before refusing, we do not. A sleep that
// starts just before max still runs in full, as in Curator. Invalid: max <= 0, sleep < 0.
func UntilElapsed(max, sleep time.Duration) Policy {
	p := elapsedPolicy{max: max, sleep: sleep, now: time.Now}
	switch {
	case max <= 0:
		p.err = invalidf("UntilElapsed: max %v, want > 0", max)
	case sleep < 0:
		p.err = invalidf("UntilElapsed: sleep %v, want >= 0", sleep)
	}
	return p
}

// NewBackOff returns a fresh BackOff whose clock starts now.
func (p elapsedPolicy) NewBackOff() backoff.BackOff {
	if p.err != nil {
		return stopped()
	}
	return &elapsedBackOff{max: p.max, sleep: p.sleep, now: p.now, start: p.now()}
}

// Allows reports true for Retryable and SessionExpired when the policy is valid.
func (p elapsedPolicy) Allows(c Class) bool { return p.err == nil && retryableClass(c) }

// Validate returns the constructor's argument error, or nil.
func (p elapsedPolicy) Validate() error { return p.err }

// elapsedBackOff returns sleep until max has elapsed since start, then Stop.
// Not safe for concurrent use.
type elapsedBackOff struct {
	max, sleep time.Duration
	now        func() time.Time
	start      time.Time
}

// NextBackOff returns the constant sleep, or backoff.Stop once max has elapsed.
func (b *elapsedBackOff) NextBackOff() time.Duration {
	if b.now().Sub(b.start) >= b.max {
		return backoff.Stop
	}
	return b.sleep
}

// Reset restarts the clock.
func (b *elapsedBackOff) Reset() { b.start = b.now() }
