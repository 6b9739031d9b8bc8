package retry

import (
	"errors"
	"fmt"

	"github.com/cenkalti/backoff/v4"
)

// ErrInvalidPolicy is wrapped by Validate, and returned by Do, for a policy built from
// invalid arguments (negative count, non-positive base or interval, nil delegate...) or
// for a nil Policy.
var ErrInvalidPolicy = errors.New("retry: invalid policy")

// Policy is a factory: every operation gets a fresh BackOff (BackOff values are not
// goroutine-safe). The policies of this package are immutable and safe for concurrent use.
type Policy interface {
	// NewBackOff returns a fresh BackOff for one operation. Its NextBackOff gives the
	// sleep before the next retry, or backoff.Stop when no retry is left.
	NewBackOff() backoff.BackOff
	// Allows reports whether a failure of class c may be retried at all: Retryable and
	// SessionExpired for every policy except SessionFailed, never Permanent.
	Allows(c Class) bool
}

// validator is implemented by the policies of this package; Validate uses it.
type validator interface {
	Validate() error
}

// Validate returns nil for a usable policy, and an error wrapping ErrInvalidPolicy for a
// nil policy or one of this package's policies built from invalid arguments. Policies
// defined elsewhere are checked only if they have a `Validate() error` method.
func Validate(p Policy) error {
	switch q := p.(type) { // this package's usual policies first: Do checks on every call (issue 27)
	case nil:
		return fmt.Errorf("%w: nil policy", ErrInvalidPolicy)
	case exponentialPolicy:
		return q.err
	case fixedPolicy:
		return q.err
	}
	if v, ok := p.(validator); ok {
		return v.Validate()
	}
	return nil
}

// invalidf builds the error remembered by a policy constructed from invalid arguments.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidPolicy}, args...)...)
}

// stopped is the BackOff of an invalid policy: it never allows a retry.
func stopped() backoff.BackOff {
	return &backoff.StopBackOff{}
}
