package recipes

import (
	"testing"
	"time"
)

// TestStickyPolicyVisits drives the visit rule through sequences of grants (queued or not) and
// ends of cached nodes, checking at each grant whether it may be cached.
func TestStickyPolicyVisits(t *testing.T) {
	type step struct {
		end            bool // a cached node ended (reused, wasted, queued); else a grant (queued) whose keep must be want
		queued         bool
		reused, wasted bool
		want           bool
	}
	g := func(queued, want bool) step { return step{queued: queued, want: want} }
	e := func(queued, reused, wasted bool) step {
		return step{end: true, queued: queued, reused: reused, wasted: wasted}
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a free lock's grants are cached", []step{g(false, true), e(false, true, false), g(false, true)}},
		{"a visit is not cached", []step{g(true, false)}},
		{"visits in a row stay uncached (s2's visitor)", []step{g(true, false), g(true, false), g(true, false)}},
		{"the lock taken again after a visit: the next visit is cached (s3)",
			[]step{g(true, false), g(false, true), e(false, true, false), g(true, true), e(true, true, false), g(true, true)}},
		{"a cached visit wasted: visits are not cached again",
			[]step{g(true, false), g(false, true), g(true, true), e(true, false, true), g(true, false)}},
		{"a node from a plain grant wasted does not unlearn",
			[]step{g(true, false), g(false, true), e(false, false, true), g(true, true)}},
		{"neutral ends of a cached visit keep the rule",
			[]step{g(true, false), g(false, true), g(true, true), e(true, false, false), g(true, true)}},
		{"an owner that queued once learns at its next grant",
			[]step{g(false, true), e(false, true, false), g(true, false), g(false, true), e(false, true, false), g(true, true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p stickyPolicy
			now := time.Unix(1000, 0)
			for i, s := range tc.steps {
				if s.end {
					p.ended(now, s.reused, s.wasted, s.queued)
					continue
				}
				if got := p.keep(now, s.queued); got != s.want {
					t.Fatalf("step %d (queued %v): keep = %v, want %v (policy %+v)", i, s.queued, got, s.want, p)
				}
			}
		})
	}
}

// TestStickyPolicyVisitsAndBackoff: the visit rule and the off-switch decide together: a
// back-off refuses even a learned visit, and a visit refused by the rule counts as one of the
// back-off's grants (it is released normally).
func TestStickyPolicyVisitsAndBackoff(t *testing.T) {
	now := time.Unix(1000, 0)
	p := stickyPolicy{trusted: true, visits: visitRule{cache: true}}
	p.ended(now, false, true, false)
	p.ended(now, false, true, false) // a back-off of stickyBackoffGrantsMin grants starts
	if p.keep(now, true) {
		t.Fatal("a learned visit cached inside a back-off")
	}
	p = stickyPolicy{trusted: true}
	p.ended(now, false, true, false)
	p.ended(now, false, true, false)
	for i := range stickyBackoffGrantsMin {
		if p.keep(now, true) {
			t.Fatalf("grant %d cached inside the back-off", i)
		}
	}
	if !p.keep(now, false) {
		t.Fatalf("the back-off did not end after %d grants (policy %+v)", stickyBackoffGrantsMin, p)
	}
}

// TestVisitRuleBackgroundAfterQuietGap: a visit's release deletes in the background only when
// the lock's previous visit from this process is at least visitQuietGap old (or there was
// none): visits every few milliseconds are two processes alternating (s4), whose next acquirer
// would queue behind a delete still in flight.
func TestVisitRuleBackgroundAfterQuietGap(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		after []time.Duration // each visit's time after t0
		want  []bool
	}{
		{"the first visit", []time.Duration{0}, []bool{true}},
		{"visits a second apart (s2)", []time.Duration{0, time.Second, 2 * time.Second}, []bool{true, true, true}},
		{"visits 5 ms apart (s4)", []time.Duration{0, 5 * time.Millisecond, 10 * time.Millisecond}, []bool{true, false, false}},
		{"quiet again after alternating", []time.Duration{0, 5 * time.Millisecond, 5*time.Millisecond + visitQuietGap}, []bool{true, false, true}},
		{"just under the gap", []time.Duration{0, visitQuietGap - time.Millisecond}, []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v visitRule
			for i, d := range tc.after {
				if got := v.background(t0.Add(d)); got != tc.want[i] {
					t.Fatalf("visit %d at +%v: background %v, want %v", i, d, got, tc.want[i])
				}
			}
		})
	}
}
