package framework

import (
	"testing"

	"github.com/google/uuid"
)

// The GUIDs read in blocks are canonical random (version 4, RFC 4122 variant) UUIDs, all
// different, and a tag still replaces only their first group.
func TestNewGUIDIsRandomV4AndUnique(t *testing.T) {
	const n = 10 * randBlock
	seen := make(map[string]bool, n)
	for range n {
		id := newGUID()
		u, err := uuid.Parse(id)
		if err != nil || len(id) != 36 || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("GUID %q: version %v, variant %v, err %v; want a canonical version 4 UUID", id, u.Version(), u.Variant(), err)
		}
		if seen[id] {
			t.Fatalf("GUID %q returned twice in %d", id, n)
		}
		seen[id] = true
	}
	f := &Framework{}
	f.cfg.protectedTag = "0123abcd"
	if id := protectedID(f); id[:protectedTagLen] != "0123abcd" || !IsProtected(ProtectedPrefix(id)+"x") {
		t.Fatalf("tagged GUID %q, want it to begin with the tag and stay a protected name", id)
	}
}
