package recipes_test

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// createNameSink keeps CreateName's result on the heap, where an acquisition's create needs it.
var createNameSink string

// The path our sequential nodes are created under is made once per Lock for its own driver
// (issue 27: the old code built it on every acquisition), and for any other lock name (a
// downgrade's read) each time, right.
func TestCreateNameMadeOnce(t *testing.T) {
	fw := testFramework(t)
	tests := []struct {
		dir      string
		drv      driver.Driver
		lockName string
		want     string
	}{
		{"/locks/a", driver.Exclusive(), "lock-", "/locks/a/lock-"},
		{"/locks/a", driver.Exclusive(), "__READ__", "/locks/a/__READ__"},
		{"/b", driver.Standard("", 1), "", "/b/"},
		{"/b", driver.Standard("", 1), "x-", "/b/x-"},
		{"/c", driver.Write(), "__WRIT__", "/c/__WRIT__"},
	}
	for _, tc := range tests {
		l, err := recipes.NewLock(fw, tc.dir, tc.drv)
		if err != nil {
			t.Fatal(err)
		}
		if got := recipes.CreateName(l, tc.lockName); got != tc.want {
			t.Errorf("CreateName(%s, %q) = %q, want %q", tc.dir, tc.lockName, got, tc.want)
		}
		if tc.lockName != tc.drv.LockName() {
			continue
		}
		if n := testing.AllocsPerRun(100, func() { createNameSink = recipes.CreateName(l, tc.lockName) }); n != 0 {
			t.Errorf("CreateName(%s, its own lock name) allocates %v times, want 0", tc.dir, n)
		}
	}
}
