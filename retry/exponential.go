package retry

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// MaxExponentialRetries is Curator's cap on the retries of an exponential policy: larger
// counts are silently lowered to it (Curator logs a warning), so the random bound
// 2^(n+1) always fits.
const MaxExponentialRetries = 29

// DefaultMaxSleep is the cap of ExponentialBackoff when no maxSleep is given: Curator's
// Integer.MAX_VALUE milliseconds (about 24.8 days).
const DefaultMaxSleep = time.Duration(math.MaxInt32) * time.Millisecond

// exponentialPolicy is ExponentialBackoff and BoundedExponentialBackoff.
type exponentialPolicy struct {
	base, maxSleep time.Duration
	maxRetries     int
	err            error
}

// ExponentialBackoff is Curator's ExponentialBackoffRetry: before retry n (n from 0) it
// sleeps base * max(1, r) where r is uniform in [0, 2^(n+1)), pinned to maxSleep
// (DefaultMaxSleep when omitted). maxRetries above MaxExponentialRetries is lowered to it.
// Invalid (see Validate): base <= 0, maxRetries < 0, maxSleep <= 0, more than one maxSleep.
func ExponentialBackoff(base time.Duration, maxRetries int, maxSleep ...time.Duration) Policy {
	p := exponentialPolicy{base: base, maxSleep: DefaultMaxSleep, maxRetries: min(maxRetries, MaxExponentialRetries)}
	switch {
	case len(maxSleep) > 1:
		p.err = invalidf("ExponentialBackoff: %d maxSleep values, want at most 1", len(maxSleep))
	case len(maxSleep) == 1:
		p.maxSleep = maxSleep[0]
	}
	if p.err == nil {
		p.err = checkExponential("ExponentialBackoff", base, p.maxSleep, maxRetries)
	}
	return p
}

// BoundedExponentialBackoff is Curator's BoundedExponentialBackoffRetry: the exponential
// sleep of ExponentialBackoff, never more than maxSleep. Invalid: base <= 0,
// maxSleep <= 0, maxRetries < 0.
func BoundedExponentialBackoff(base, maxSleep time.Duration, maxRetries int) Policy {
	return exponentialPolicy{
		base: base, maxSleep: maxSleep, maxRetries: min(maxRetries, MaxExponentialRetries),
		err: checkExponential("BoundedExponentialBackoff", base, maxSleep, maxRetries),
	}
}

func checkExponential(name string, base, maxSleep time.Duration, maxRetries int) error {
	switch {
	case base <= 0:
		return invalidf("%s: base %v, want > 0", name, base)
	case maxSleep <= 0:
		return invalidf("%s: maxSleep %v, want > 0", name, maxSleep)
	case maxRetries < 0:
		return invalidf("%s: maxRetries %d, want >= 0", name, maxRetries)
	}
	return nil
}

// NewBackOff returns a fresh exponential BackOff using the global math/rand/v2 source.
func (p exponentialPolicy) NewBackOff() backoff.BackOff {
	if p.err != nil {
		return stopped()
	}
	return &exponentialBackOff{base: p.base, maxSleep: p.maxSleep, maxRetries: p.maxRetries, intn: rand.Int64N}
}

// Allows reports true for Retryable and SessionExpired when the policy is valid.
func (p exponentialPolicy) Allows(c Class) bool { return p.err == nil && retryableClass(c) }

// Validate returns the constructor's argument error, or nil.
func (p exponentialPolicy) Validate() error { return p.err }

// exponentialBackOff is Curator's randomized exponential sleep as a backoff.BackOff.
// Not safe for concurrent use.
type exponentialBackOff struct {
	base, maxSleep      time.Duration
	maxRetries, retries int
	intn                func(n int64) int64 // uniform in [0, n); injectable for tests
}

// NextBackOff returns the sleep before the next retry, or backoff.Stop after maxRetries.
func (b *exponentialBackOff) NextBackOff() time.Duration {
	if b.retries >= b.maxRetries {
		return backoff.Stop
	}
	n := b.retries
	b.retries++
	return curatorSleep(b.base, b.maxSleep, n, b.intn)
}

// Reset starts the retry count again from 0.
func (b *exponentialBackOff) Reset() { b.retries = 0 }

// curatorSleep is base * max(1, intn(2^(n+1))) pinned to maxSleep, without overflow for
// any n >= 0 (CURATOR-262: the shift is clamped, the product saturates at maxSleep).
func curatorSleep(base, maxSleep time.Duration, n int, intn func(int64) int64) time.Duration {
	shift := min(max(n, 0)+1, 62)
	r := max(1, intn(int64(1)<<shift))
	if r > int64(maxSleep/base) { // base*r > maxSleep, and base*r might overflow
		return maxSleep
	}
	return base * time.Duration(r)
}
