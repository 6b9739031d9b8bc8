package retry

import (
	"time"

	"github.com/cenkalti/backoff/v4"
)

// MinPace is the shortest delay a Pacer waits: a policy without delays (or without retries)
// must still not turn a loop that goes on for ever into a spin.
const MinPace = 100 * time.Millisecond

// Pacer paces a loop that must go on for ever whatever fails (a watch that must be set again,
// say): each failure waits the next delay of the policy's BackOff; once the policy has no retry
// left, its last delay (at least MinPace) repeats. Reset starts the policy over after a success.
// It does no I/O and does not sleep itself. A Pacer is not safe for concurrent use.
type Pacer struct {
	policy Policy
	b      backoff.BackOff
	last   time.Duration
}

// NewPacer returns a Pacer for p (nil: the policy gives no delays, MinPace repeats).
func NewPacer(p Policy) *Pacer { return &Pacer{policy: p} }

// Next returns the delay to wait before the next try.
func (p *Pacer) Next() time.Duration {
	if p.b == nil && p.policy != nil && Validate(p.policy) == nil {
		p.b = p.policy.NewBackOff()
	}
	if p.b != nil {
		if d := p.b.NextBackOff(); d != backoff.Stop {
			p.last = d
		}
	}
	return max(p.last, MinPace)
}

// Reset starts the policy's delays over.
func (p *Pacer) Reset() { p.b, p.last = nil, 0 }
