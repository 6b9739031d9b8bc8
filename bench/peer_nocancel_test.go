package main

import "testing"

// The no-cancel variant is diagnostic: never in the default plan, there when named.
func TestNoCancelPeerOnlyWhenNamed(t *testing.T) {
	has := func(es []peerEntry) bool {
		for _, e := range es {
			if e.peer.Name() == zkrecipesNoCancelName {
				return e.variant
			}
		}
		return false
	}
	tests := []struct {
		selected map[string]bool
		want     bool
	}{
		{nil, false},
		{map[string]bool{"zkrecipes": true}, false},
		{map[string]bool{"zkrecipes-no-cancel": true}, true},
	}
	for _, tc := range tests {
		if got := has(allPeers(tc.selected)); got != tc.want {
			t.Errorf("allPeers(%v) has the no-cancel variant: %v, want %v", tc.selected, got, tc.want)
		}
	}
}
