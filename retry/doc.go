// Package retry holds the retry policies of zkrecipes and the loop that applies them.
//
// It mirrors Apache Curator's RetryPolicy family (ExponentialBackoffRetry,
// BoundedExponentialBackoffRetry, RetryNTimes, RetryOneTime, RetryUntilElapsed,
// RetryForever and SessionFailedRetryPolicy) on top of github.com/cenkalti/backoff/v4.
//
// A Policy is an immutable factory, safe for concurrent use: every operation asks it for a
// fresh backoff.BackOff (NewBackOff), because BackOff values keep state and are not
// goroutine-safe. Do runs one operation under a policy: it classifies each failure
// (Permanent, Retryable, SessionExpired), asks the policy whether that class may be retried
// at all (Allows), then asks the operation's BackOff how long to sleep (backoff.Stop ends
// the loop), and sleeps while honouring the context.
//
// # Invalid arguments
//
// Constructors never panic and do no I/O, so they return just the Policy. A policy built
// from invalid arguments (a negative count, a non-positive base or interval, a nil
// delegate...) is remembered as invalid: Validate reports an error that wraps
// ErrInvalidPolicy and says what was wrong, Do refuses to run the operation with that
// error, NewBackOff returns a BackOff that stops at once and Allows reports false. Callers
// that take a Policy from their users (framework.WithRetryPolicy) should call Validate
// when they are configured. Out-of-range values that Curator itself accepts are clamped
// exactly like Curator clamps them (more than 29 exponential retries become 29; an
// exponential sleep is pinned to its maximum).
//
// # Differences from Curator
//
//   - UntilElapsed checks the elapsed time before sleeping, so its final refusal does not
//     sleep first (Curator's RetryUntilElapsed sleeps once more and then refuses).
//   - Do honours its context while sleeping and returns at once when it ends; Curator
//     sleeps through Thread.sleep and stops only on an interrupt.
//   - Nothing here blocks until connected: that is the framework's business.
//
// This package does no I/O and imports no other package of this module.
package retry
