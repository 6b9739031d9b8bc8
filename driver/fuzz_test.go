package driver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/driver"
)

// fuzzDrivers are the built-in drivers every fuzz target runs through.
func fuzzDrivers() []driver.Driver {
	return []driver.Driver{
		driver.Exclusive(), driver.Standard("lease-", 3), driver.Standard("", 1), driver.Write(),
		driver.Read(""), driver.Read("__WRIT__0000000001"), driver.Semaphore(2),
		driver.SharedSemaphore("/count", 1), driver.KazooLock(), driver.KazooRead(),
	}
}

// nameSeeds are child names worth starting from: every layout we know, and the names that
// broke a parser once (32 hex digits then a sequence, issue 25).
var nameSeeds = []string{
	"", "lock-0000000001", "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001",
	"__WRIT__0000000002", "_c_x-__READ__0000000003", "lease-0000000004", "latch-0000000005",
	"9f0c1e2d3c4b5a69788796a5b4c3d2e1__lock__0000000006", "0123456789abcdef0123456789abcdef__rlock__0000000007",
	"000000000000000000000000000000000000000000", "00000000000000000000000000000000000000000",
	"000000000000000000000000000000000123456789", "ffffffffffffffffffffffffffffffff0000000000",
	"lock-00000000000000000000", "!", "junk", "zzz0000000000", "\x00\xff\u202e", "0000000000",
}

// FuzzNames feeds one child name to every name parser of the package: none may panic, and a
// sort key is always a suffix of the name.
func FuzzNames(f *testing.F) {
	for _, s := range nameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, d := range fuzzDrivers() {
			if k := d.SortKey(name); !strings.HasSuffix(name, k) {
				t.Errorf("%T.SortKey(%q) = %q, not a suffix", d, name, k)
			}
		}
		if k := driver.SequenceKey(name); !strings.HasSuffix(name, k) {
			t.Errorf("SequenceKey(%q) = %q", name, k)
		}
		_ = driver.KeyAfter(name, name[:len(name)/2])
		if driver.IsKazooNode(name) && len(name) < 32+len("__lock__")+10 {
			t.Errorf("IsKazooNode(%q) on a name too short for kazoo", name)
		}
		_ = driver.IsKazooReader(name)
		_, _ = driver.DecodeCount([]byte(name))
	})
}

// FuzzEvaluate decides on an arbitrary listing (newline-separated names) with every driver:
// no panic, our node is found, and what it says to watch is a child that sorts before ours.
func FuzzEvaluate(f *testing.F) {
	f.Add(strings.Join(nameSeeds, "\n"), uint8(1), []byte{0, 0, 0, 2})
	f.Add("lock-0000000002\nlock-0000000001", uint8(0), []byte(nil))
	f.Add("!\n_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001", uint8(1), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add("__READ__0000000003\n__WRIT__0000000001\n__READ__0000000002", uint8(2), []byte{1})
	f.Fuzz(func(t *testing.T, listing string, our uint8, input []byte) {
		children := strings.Split(listing, "\n")
		ours := children[int(our)%len(children)]
		for _, d := range fuzzDrivers() {
			dec, v, err := driver.Evaluate(d, children, "/dir/"+ours, input)
			if strings.Contains(ours, "/") { // no child's name: only its last segment is looked for
				continue
			}
			if err != nil {
				t.Fatalf("%T: %v", d, err)
			}
			if len(v.Sorted) != len(children) || v.Index < 0 || v.Sorted[v.Index] != ours {
				t.Fatalf("%T: view %+v for %q", d, v, ours)
			}
			if dec.WatchNode != "" && (dec.Holds || !slices.Contains(v.Sorted[:v.Index], dec.WatchNode)) {
				t.Fatalf("%T: decision %+v watches no child ahead of %q in %q", d, dec, ours, v.Sorted)
			}
			_ = driver.CheckGrant(v)
		}
	})
}

// keyAfterRef is KeyAfter as Curator's fixForSorting states it: the part after the last
// occurrence of lockName. KeyAfter's fast path must agree with it on every input.
func keyAfterRef(child, lockName string) string {
	if lockName == "" {
		return child
	}
	if i := strings.LastIndex(child, lockName); i >= 0 {
		return child[i+len(lockName):]
	}
	return child
}

func TestKeyAfterAgreesWithLastIndex(t *testing.T) {
	for _, tc := range []struct{ child, lockName string }{
		{"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001", "-lock-"},
		{"lock-0000000001", "lock-"},
		{"lock-lock-0000000001", "lock-"},
		{"lock-0000000001", "0000000001"},    // the lock name is the digits themselves
		{"a-lock1-00000000011", "lock1"},     // ends in a digit: the search decides
		{"x1000000000012", "1"},              // the last "1" is inside the digits
		{"lock-000000000x", "lock-"},         // no sequence: the search decides
		{"-lock-0000000001-lock-", "-lock-"}, // the marker after the digits
		{"_c_x-__READ__0000000003", "__READ__"},
		{"__WRIT__0000000002", "__READ__"},
		{"0000000001", "-lock-"},
		{"", "-lock-"},
		{"-lock-", "-lock-"},
	} {
		if got, want := driver.KeyAfter(tc.child, tc.lockName), keyAfterRef(tc.child, tc.lockName); got != want {
			t.Errorf("KeyAfter(%q, %q) = %q, want %q", tc.child, tc.lockName, got, want)
		}
	}
}

// FuzzKeyAfter: KeyAfter's fast path for "<lockName><10 digits>" agrees with the search.
func FuzzKeyAfter(f *testing.F) {
	for _, s := range nameSeeds {
		f.Add(s, "-lock-")
		f.Add(s, "lock-")
		f.Add(s, "__READ__")
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, child, lockName string) {
		if got, want := driver.KeyAfter(child, lockName), keyAfterRef(child, lockName); got != want {
			t.Errorf("KeyAfter(%q, %q) = %q, want %q", child, lockName, got, want)
		}
	})
}
