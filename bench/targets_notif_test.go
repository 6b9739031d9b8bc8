package main

import "testing"

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
