package framework

import (
	"errors"
	"testing"
)

// fullCheck is the check pathCache shortens.
func fullCheck(p string, write bool) error {
	if write {
		return ValidatePath(p)
	}
	return validateReadPath(p)
}

// pathCacheSeeds are paths worth starting from: a lock's, and the ones each rule refuses.
var pathCacheSeeds = []string{
	"/locks/a", "/locks/a/_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001", "/locks/a/x/y",
	"/", "", "a", "/locks/a/", "/locks//a", "/locks/a/.", "/locks/a/..", "/zookeeper", "/zookeeper/quota",
	"/locks/a/\x00", "/locks/a/\xff", "/locks/a/\ud7ff", "/locks/a/\uf8ff", "/locks/a/\ufff0", "/locks",
	"/locks/a/\u0085", "/l", "/l/m",
}

// TestPathCacheAgreesWithTheFullCheck runs every seed after every seed (so each cached
// directory meets every path) and wants the full check's verdict each time, and its error.
func TestPathCacheAgreesWithTheFullCheck(t *testing.T) {
	for _, prev := range pathCacheSeeds {
		for _, p := range pathCacheSeeds {
			for _, write := range []bool{false, true} {
				var c pathCache
				_ = c.check(prev, write)
				got, want := c.check(p, write), fullCheck(p, write)
				if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
					t.Errorf("after %q: check(%q, write=%v) = %v, want %v", prev, p, write, got, want)
				}
				if got != nil && !errors.Is(got, ErrInvalidPath) {
					t.Errorf("check(%q) = %v, not ErrInvalidPath", p, got)
				}
			}
		}
	}
}

// TestPathCacheAllocations: a lock's requests under one directory allocate nothing to check
// their paths once the directory is cached.
func TestPathCacheAllocations(t *testing.T) {
	var c pathCache
	dir, child := "/locks/a", "/locks/a/_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001"
	if err := c.check(child, true); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if c.check(dir, false) != nil || c.check(child, true) != nil {
			t.Fatal("a valid path refused")
		}
	}); n != 0 {
		t.Errorf("%v allocations per check, want 0", n)
	}
}

// FuzzPathCache: whatever directory the cache holds, its verdict on a path is the full check's.
func FuzzPathCache(f *testing.F) {
	for _, prev := range pathCacheSeeds {
		f.Add(prev, "/locks/a/b", false)
		f.Add("/locks/a/b", prev, true)
	}
	f.Fuzz(func(t *testing.T, prev, p string, write bool) {
		var c pathCache
		_ = c.check(prev, true)
		_ = c.check(prev, false)
		got, want := c.check(p, write), fullCheck(p, write)
		if (got == nil) != (want == nil) {
			t.Errorf("after %q: check(%q, write=%v) = %v, want %v", prev, p, write, got, want)
		}
	})
}
