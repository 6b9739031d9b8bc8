package framework

import (
	"context"
	"testing"
	"time"
)

// Inline marks exactly the context it is given: a context derived from it that shares its Done
// stays inline, one with a Done of its own (a cleanup's WithTimeout) runs its requests beside
// it again, so that its own bound still ends the wait at once.
func TestInlineMarksOnlyItsOwnDone(t *testing.T) {
	type key struct{}
	live, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := Inline(live)
	timed, cancelTimed := context.WithTimeout(in, time.Minute)
	defer cancelTimed()
	child, cancelChild := context.WithCancel(in)
	defer cancelChild()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want bool
	}{
		{"unmarked", live, false},
		{"marked", in, true},
		{"value below the mark", context.WithValue(in, key{}, 1), true},
		{"WithoutCancel of the mark", context.WithoutCancel(in), false},
		{"WithTimeout below the mark", timed, false},
		{"WithCancel below the mark", child, false},
		{"marked again below", Inline(timed), true},
	} {
		if got := inlined(tc.ctx); got != tc.want {
			t.Errorf("%s: inlined = %v, want %v", tc.name, got, tc.want)
		}
		if got, want := runsHere(tc.ctx), tc.want || tc.ctx.Done() == nil; got != want {
			t.Errorf("%s: runsHere = %v, want %v", tc.name, got, want)
		}
	}
}
