package framework_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// WithCheck's Done and Err run the check first, so a check that cancels the context is seen
// on that very call; Cause and derived contexts are the plain context's; a nil check is ctx.
func TestWithCheck(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		ask  func(ctx context.Context) bool // reports whether the context looks ended
	}{
		{"Err", func(ctx context.Context) bool { return ctx.Err() != nil }},
		{"Done", func(ctx context.Context) bool {
			select {
			case <-ctx.Done():
				return true
			default:
				return false
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner, cancel := context.WithCancelCause(context.Background())
			due, calls := false, 0
			ctx := framework.WithCheck(inner, func() {
				calls++
				if due {
					cancel(boom)
				}
			})
			child, stop := context.WithCancel(ctx)
			defer stop()
			if tt.ask(ctx) {
				t.Fatal("ended before the check was due")
			}
			due = true
			if !tt.ask(ctx) {
				t.Fatal("the first call after the check became due saw the context live")
			}
			if calls < 2 {
				t.Fatalf("check ran %d times, want once per call", calls)
			}
			if !errors.Is(context.Cause(ctx), boom) || child.Err() == nil {
				t.Fatalf("Cause = %v, derived context's Err = %v", context.Cause(ctx), child.Err())
			}
		})
	}
	if ctx := context.Background(); framework.WithCheck(ctx, nil) != ctx {
		t.Fatal("a nil check wraps the context")
	}
}
