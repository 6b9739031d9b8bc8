package framework

import (
	"path"
	"testing"
)

// splitPath must agree with path.Dir and path.Base on every validated path a protected create
// can carry (issue 27 replaced them on that path).
func TestSplitPathAgreesWithPath(t *testing.T) {
	for _, p := range []string{"/a", "/a/b", "/ns/locks/x/lock-", "/é/ü-", "/a/b/c/d/e/f/g/h", "/x-0000000001"} {
		if err := ValidatePath(p); err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		dir, base := splitPath(p)
		if dir != path.Dir(p) || base != path.Base(p) {
			t.Errorf("splitPath(%q) = (%q, %q), want (%q, %q)", p, dir, base, path.Dir(p), path.Base(p))
		}
	}
}

func FuzzSplitPath(f *testing.F) {
	f.Add("/a/b")
	f.Fuzz(func(t *testing.T, p string) {
		if ValidatePath(p) != nil || p == "/" {
			return
		}
		if dir, base := splitPath(p); dir != path.Dir(p) || base != path.Base(p) {
			t.Errorf("splitPath(%q) = (%q, %q), want (%q, %q)", p, dir, base, path.Dir(p), path.Base(p))
		}
	})
}
