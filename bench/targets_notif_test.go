package main

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// d's herd target: one waiter woken per release, plus at most the releaser's own-node watch
// (issue 24.2); a herd, or a release that woke nobody, misses it.
func TestNotifTarget(t *testing.T) {
	for _, tc := range []struct {
		notifs, releases int64
		want             string
	}{
		{75, 75, "met"},
		{87, 75, "met"},  // 16% of the releasers' own-node watches fired too
		{150, 75, "met"}, // every one did
		{151, 75, "**missed**"},
		{64 * 75, 75, "**missed**"}, // a herd
		{74, 75, "**missed**"},      // a release that woke nobody
	} {
		d := fakeRun()
		d.counts[key{zkrecipesName, idHerd}] = countResult{Per: tc.releases, PerWhat: "release", Notifications: tc.notifs}
		if got := d.notifTarget().verdict; got != tc.want {
			t.Errorf("%d notifications / %d releases: %s, want %s", tc.notifs, tc.releases, got, tc.want)
		}
	}
}

// The depth target counts the server's notifications, which include the releaser's own-node watch
// (issue 24.2), as d's does: 1 to 2 per release is one waiter woken; a herd gives thousands.
// (Failed before: 1.33 per release, the own-node watch of a third of the releasers, was "missed".)
func TestDepthNotifTarget(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		has  bool
		want string
	}{
		{1, true, "met"},
		{1.33, true, "met"},
		{2, true, "met"},
		{2.01, true, "**missed**"},
		{0.9, true, "**missed**"}, // a release that woke nobody
		{10000, true, "**missed**"},
		{0, false, "**missed**"},
	} {
		d := fakeRun()
		var deep spec
		for _, s := range d.plan.Lock {
			if s.Kind == harness.Depth {
				deep = s
			}
		}
		r := d.results[key{zkrecipesName, deep.ID}][0]
		r.Extra = map[string]float64{}
		if tc.has {
			r.Extra["notifications_per_release"] = tc.n
		}
		d.results[key{zkrecipesName, deep.ID}] = []harness.Result{r, r, r}
		rows := d.depthTargets()
		if len(rows) == 0 || rows[0].verdict != tc.want {
			t.Errorf("%.2f notifications per release (present %v): %+v, want %s", tc.n, tc.has, rows, tc.want)
		}
	}
}
