package retry

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// countingPolicy counts the BackOffs it makes.
type countingPolicy struct {
	Policy
	made *atomic.Int32
}

func (p countingPolicy) NewBackOff() backoff.BackOff {
	p.made.Add(1)
	return p.Policy.NewBackOff()
}

// A Do whose first attempt succeeds makes no BackOff (an allocation on every operation of the
// framework); one that retries makes exactly one.
func TestDoMakesBackOffOnlyOnFailure(t *testing.T) {
	var made atomic.Int32
	p := countingPolicy{ExponentialBackoff(time.Millisecond, 3), &made}
	ctx := context.Background()
	classify := func(error) Class { return Retryable }
	if err := Do(ctx, p, classify, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := made.Load(); n != 0 {
		t.Fatalf("first-attempt success made %d BackOffs, want 0", n)
	}
	fails := 2
	op := func(context.Context) error {
		if fails > 0 {
			fails--
			return errors.New("transient")
		}
		return nil
	}
	if err := Do(ctx, p, classify, op, WithTimer(newFakeTimer(true))); err != nil {
		t.Fatal(err)
	}
	if n := made.Load(); n != 1 {
		t.Fatalf("two retries made %d BackOffs, want 1", n)
	}
}
