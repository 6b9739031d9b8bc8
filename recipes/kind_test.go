package recipes

import (
	"errors"
	"testing"
)

// CheckContender accepts the contender names of Curator's recipes, protected or not, under a
// lock directory, and refuses everything else with ErrNotContender.
func TestCheckContender(t *testing.T) {
	const guid = "0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21"
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{"/locks/a/lock-0000000001", true},
		{"/locks/a/_c_" + guid + "-lock-0000000001", true},
		{"/locks/a/_c_" + guid + "-__READ__0000000002", true},
		{"/locks/a/_c_" + guid + "-__WRIT__0000000003", true},
		{"/limits/c/leases/_c_" + guid + "-lease-0000000004", true},
		{"/elections/e/_c_" + guid + "-latch-0000000005", true},
		{"/locks/k/_c_" + guid + "-__lock__0000000006", true},
		{"/locks/k/_c_" + guid + "-__rlock__0000000007", true},
		{"/locks/a", false},
		{"/locks/a/", false},
		{"locks/a/lock-0000000001", false},
		{"/lock-0000000001", false},
		{"/locks/a/lock-000000001", false},
		{"/locks/a/lock-00000000012", false}, // "lock-0" then 10 digits: no known lock name
		{"/locks/a/foo-0000000001", false},
		{"/locks/a/_c_" + guid + "lock-0000000001", false},
		{"/locks/a/_c_" + guid[1:] + "-lock-0000000001", false},
		{"/locks/a/" + guid + "__lock__0000000001", false},
		{"/locks/a/lock-0000000001/lock-0000000002", false},
	} {
		err := CheckContender(tt.path)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrNotContender)) {
			t.Errorf("CheckContender(%q) = %v, want ok=%v", tt.path, err, tt.ok)
		}
	}
}
