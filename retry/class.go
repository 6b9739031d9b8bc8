package retry

import "strconv"

// Class says how an operation's failure is treated; framework.Classify produces it.
// The zero value is Permanent, so an unclassified failure is never retried.
type Class int

const (
	// Permanent failures are never retried (NoNode, NodeExists, BadVersion, NoAuth, ...).
	Permanent Class = iota
	// Retryable failures are retried under every policy: connection loss in flight, no
	// server, operation timeout, session moved.
	Retryable
	// SessionExpired failures are retried unless the policy is SessionFailed.
	SessionExpired
)

// String returns the class name, or "Class(n)" for an unknown value.
func (c Class) String() string {
	switch c {
	case Permanent:
		return "Permanent"
	case Retryable:
		return "Retryable"
	case SessionExpired:
		return "SessionExpired"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// retryableClass reports whether c is a class that a standard policy retries.
func retryableClass(c Class) bool {
	return c == Retryable || c == SessionExpired
}
