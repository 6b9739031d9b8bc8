package retry

import "context"

// interruptedError is Do's result when its context ends with a retryable failure in hand.
// It matches, with errors.Is, the context's error, its cause and op's last error.
type interruptedError struct {
	errs []error // ctx.Err(), [context.Cause(ctx) if different], last
}

func interrupted(ctx context.Context, last error) error {
	errs := []error{ctx.Err()}
	if cause := context.Cause(ctx); cause != nil && cause != errs[0] {
		errs = append(errs, cause)
	}
	return &interruptedError{errs: append(errs, last)}
}

// Error reads "retry: <ctx error> (last error: <op error>)".
func (e *interruptedError) Error() string {
	ctxMsg := e.errs[0].Error()
	if len(e.errs) == 3 {
		ctxMsg += ": " + e.errs[1].Error()
	}
	return "retry: " + ctxMsg + " (last error: " + e.errs[len(e.errs)-1].Error() + ")"
}

// Unwrap returns the context's error, its cause if different, and op's last error.
func (e *interruptedError) Unwrap() []error { return e.errs }
