package framework

import (
	"strings"
	"testing"
)

// newProtectedCreate builds the create's path and its prefix in one string: the same path and
// prefix as ProtectedPrefix and joinChild make, under the root, below it, and in a namespace.
func TestProtectedCreatePathAndPrefix(t *testing.T) {
	for _, tc := range []struct{ ns, p string }{
		{"", "/lock-"},
		{"", "/locks/a/lock-"},
		{"/app", "/locks/a/lock-"},
		{"/app", "/x"},
	} {
		f := &Framework{ns: tc.ns}
		pc := f.newProtectedCreate(tc.p, nil, &createConfig{})
		parent, base := splitPath(f.full(tc.p))
		id := pc.prefix[len("_c_") : len(pc.prefix)-1]
		if want := ProtectedPrefix(id); pc.prefix != want {
			t.Errorf("%q in %q: prefix %q, want %q", tc.p, tc.ns, pc.prefix, want)
		}
		if want := joinChild(parent, ProtectedPrefix(id)+base); pc.full != want || pc.parent != parent {
			t.Errorf("%q in %q: full %q parent %q, want %q %q", tc.p, tc.ns, pc.full, pc.parent, want, parent)
		}
		if !IsProtected(strings.TrimPrefix(pc.full, joinChild(parent, ""))) {
			t.Errorf("%q: the created name %q is not protected", tc.p, pc.full)
		}
	}
}
