package retry

import "github.com/cenkalti/backoff/v4"

// sessionFailedPolicy is SessionFailed.
type sessionFailedPolicy struct {
	p Policy
}

// SessionFailed is Curator's SessionFailedRetryPolicy: it behaves like p, except that a
// SessionExpired failure is never retried, so an operation fails as soon as its session is
// gone. Invalid: p is nil or invalid.
func SessionFailed(p Policy) Policy {
	return sessionFailedPolicy{p: p}
}

// NewBackOff returns p's BackOff.
func (s sessionFailedPolicy) NewBackOff() backoff.BackOff {
	if s.p == nil {
		return stopped()
	}
	return s.p.NewBackOff()
}

// Allows reports false for SessionExpired, and p.Allows(c) otherwise.
func (s sessionFailedPolicy) Allows(c Class) bool {
	return c != SessionExpired && s.p != nil && s.p.Allows(c)
}

// Validate reports whether p is usable.
func (s sessionFailedPolicy) Validate() error {
	if s.p == nil {
		return invalidf("SessionFailed: nil delegate")
	}
	return Validate(s.p)
}
