package recipes

import "testing"

// countState.newer orders states of the count's node as ZooKeeper made them: a node created
// later (a larger czxid: zxids only grow) is newer whatever its version, a node created
// earlier never is, and within one node a larger version is newer. A read of a deleted node
// that arrives after a read of its successor must not roll Count back, nor reach a listener.
func TestCountStateNewer(t *testing.T) {
	st := func(czxid int64, version int32) countState {
		return countState{VersionedValue: VersionedValue{Version: version}, czxid: czxid}
	}
	for _, tt := range []struct {
		name     string
		s, seen  countState
		newerHas bool
	}{
		{"later version, same node", st(10, 3), st(10, 2), true},
		{"same version, same node", st(10, 2), st(10, 2), false},
		{"earlier version, same node", st(10, 1), st(10, 2), false},
		{"recreated node, version 0", st(20, 0), st(10, 7), true},
		{"deleted node read late", st(10, 7), st(20, 0), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.newer(tt.seen); got != tt.newerHas {
				t.Fatalf("%+v.newer(%+v) = %v, want %v", tt.s, tt.seen, got, tt.newerHas)
			}
		})
	}
}
