package recipes

import (
	"testing"
	"time"
)

// TestStickyPolicy drives the adaptive off-switch through sequences of node ends and checks
// whether the next release may keep its node, and for how long it may not.
func TestStickyPolicy(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type end struct {
		at             time.Duration // after t0
		reused, wasted bool
	}
	for _, tc := range []struct {
		name  string
		ends  []end
		at    time.Duration // when the next release asks
		keep  bool
		until time.Duration // the back-off's end after t0, when not keep
	}{
		{"fresh", nil, 0, true, 0},
		{"one wasted keeps caching", []end{{0, false, true}}, 0, true, 0},
		{"two wasted back off 1s", []end{{0, false, true}, {0, false, true}}, 500 * time.Millisecond, false, time.Second},
		{"back-off over", []end{{0, false, true}, {0, false, true}}, time.Second, true, 0},
		{"wasted again after back-off doubles", []end{{0, false, true}, {0, false, true}, {time.Second, false, true}},
			2 * time.Second, false, 3 * time.Second},
		{"a reuse resets", []end{{0, false, true}, {0, false, true}, {time.Second, true, false}, {time.Second, false, true}},
			time.Second, true, 0},
		{"neutral ends change nothing", []end{{0, false, true}, {0, false, false}, {0, false, false}}, 0, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p stickyPolicy
			for _, e := range tc.ends {
				p.ended(t0.Add(e.at), e.reused, e.wasted, false)
			}
			if got := p.keep(t0.Add(tc.at), false); got != tc.keep {
				t.Fatalf("keep = %v, want %v (policy %+v)", got, tc.keep, p)
			}
			if !tc.keep && !p.until.Equal(t0.Add(tc.until)) {
				t.Fatalf("until = %v, want %v", p.until.Sub(t0), tc.until)
			}
		})
	}
}

// TestStickyPolicyBackoffCapped wastes a node at the end of every back-off: the back-off
// doubles up to stickyBackoffMax (and stickyBackoffGrantsMax) and stays there.
func TestStickyPolicyBackoffCapped(t *testing.T) {
	p := stickyPolicy{trusted: true} // a re-use came first: the back-off is counted in grants too
	now := time.Unix(1000, 0)
	for range 14 {
		p.ended(now, false, true, false)
		for p.backingOff(now) { // each back-off runs out of grants, or time
			if p.left > 0 {
				p.keep(now, false)
				continue
			}
			now = p.until
		}
	}
	if p.backoff != stickyBackoffMax || p.grants != stickyBackoffGrantsMax {
		t.Fatalf("backoff = %v, %d grants, want the caps %v, %d", p.backoff, p.grants, stickyBackoffMax, stickyBackoffGrantsMax)
	}
	if p.ended(now, false, true, false); p.keep(now, false) {
		t.Fatal("keep inside the back-off")
	}
}

// TestStickyPolicyAlternation simulates strict alternation (every cached node wasted) for ten
// minutes at one release per millisecond: the share of releases that cache must stay far below
// what would cost the 10 % that issue 28 allows.
func TestStickyPolicyAlternation(t *testing.T) {
	var p stickyPolicy
	t0 := time.Unix(1000, 0)
	cached, total := 0, 0
	for at := time.Duration(0); at < 10*time.Minute; at += time.Millisecond {
		now := t0.Add(at)
		total++
		if p.keep(now, false) {
			cached++
			p.ended(now, false, true, false)
		}
	}
	if share := float64(cached) / float64(total); share > 0.001 {
		t.Fatalf("%d of %d releases cached (%.4f), want <= 0.1%%", cached, total, share)
	}
}

// TestStickyPolicyBackoffInGrants: on a lock that re-used a node, a back-off is counted in the
// lock's grants (bounded in time too), so that a lock whose nodes a rare visitor took twice in a
// row (issue 28's s2: one visit in ten re-uses) releases a few nodes normally, not a whole second
// of its acquisitions; a lock that never re-used one (strict alternation) backs off for the time.
func TestStickyPolicyBackoffInGrants(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type step struct {
		at             time.Duration // after t0
		reused, wasted bool          // a node re-used, or wasted (neither: a grant, whose keep must be want)
		want           bool
	}
	w := func(at time.Duration) step { return step{at: at, wasted: true} }
	r := step{reused: true}
	g := func(at time.Duration, want bool) step { return step{at: at, want: want} }
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"rare visitor: the first back-off is a few grants", []step{r, w(0), w(0),
			g(ms, false), g(2*ms, false), g(3*ms, false), g(4*ms, false), g(5*ms, true)}},
		{"wasted again after the back-off doubles it", []step{r, w(0), w(0),
			g(ms, false), g(ms, false), g(ms, false), g(ms, false), g(ms, true), w(2 * ms),
			g(3*ms, false), g(3*ms, false), g(3*ms, false), g(3*ms, false),
			g(3*ms, false), g(3*ms, false), g(3*ms, false), g(3*ms, false), g(3*ms, true)}},
		{"a slow lock is sticky again after the time bound", []step{r, w(0), w(0),
			g(ms, false), g(stickyBackoffMin, true)}},
		{"never re-used (alternation): the back-off is the time's alone", []step{w(0), w(0),
			g(ms, false), g(ms, false), g(ms, false), g(ms, false), g(ms, false), g(999*ms, false), g(stickyBackoffMin, true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p stickyPolicy
			for i, s := range tc.steps {
				now := t0.Add(s.at)
				if s.wasted || s.reused {
					p.ended(now, s.reused, s.wasted, false)
					continue
				}
				if got := p.keep(now, false); got != s.want {
					t.Fatalf("step %d: keep = %v, want %v (policy %+v)", i, got, s.want, p)
				}
			}
		})
	}
}
