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
// The lock's driver must allow it (driver.StickyDriver: Exclusive, Write, Read, the kazoo
// drivers); any other is ErrInvalidArgument, naming the driver, as is a sticky lock in a
// transactional multi-lock. A local re-grant keeps the node, so its fencing token is the
// previous local lease's (docs/safety.md, "Sticky leases"). Close (Lock.Close) deletes an idle
// node and ends the caching.
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
