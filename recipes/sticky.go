package recipes

import (
	"fmt"
	"time"
)

// DefaultStickyIdle is how long a sticky lock keeps an idle node when no one else asks for it.
const DefaultStickyIdle = 30 * time.Second

// WithSticky makes the lock's leases sticky (issue 28, design.md "Sticky leases"): Release keeps
// the node, idle, so that the next Acquire in this process can be granted locally with no request,
// while the node goes at once when a conflicting contender queues behind it, after idle (0: the
// default, DefaultStickyIdle) of no use, or when the lock or the framework is closed. A negative
// idle time is ErrInvalidArgument.
//
// This is the option's signature only; its behaviour lands with issue 28.
func WithSticky(idle time.Duration) LockOption {
	return func(o *lockOptions) {
		if idle < 0 {
			o.err = fmt.Errorf("%w: sticky idle time %v, want >= 0", ErrInvalidArgument, idle)
			return
		}
		if idle == 0 {
			idle = DefaultStickyIdle
		}
		o.sticky = idle
	}
}
