package driver_test

import (
	"errors"
	"testing"

	"github.com/zkrecipes/zkrecipes/driver"
)

func TestSequenceKey(t *testing.T) {
	tests := []struct{ child, want string }{
		{"_c_0d8f-lock-0000000007", "0000000007"},
		{"9f0c1e__lock__0000000012", "0000000012"},
		{"__READ__0000000003", "0000000003"},
		{"no-sequence", "no-sequence"},
		{"lock-00000007", "lock-00000007"}, // 8 digits: not a ZooKeeper sequence
		{"", ""},
	}
	for _, tt := range tests {
		if got := driver.SequenceKey(tt.child); got != tt.want {
			t.Errorf("SequenceKey(%q) = %q, want %q", tt.child, got, tt.want)
		}
	}
}

// A lock name per instance (issue 17.17): each instance keys the other's nodes as whole names,
// which sort after every sequence, so both find themselves first. driver.Sort shows it;
// CheckGrant refuses the later one's grant; SequenceKey gives both one order.
func TestPerInstanceLockNamesBreakTheOrder(t *testing.T) {
	a := driver.Standard("alpha-", 1)
	b := driver.Standard("beta-", 1)
	children := []string{"_c_1-alpha-0000000000", "_c_2-beta-0000000001"}
	for _, tt := range []struct {
		name string
		d    driver.Driver
		ours string
	}{{"alpha", a, children[0]}, {"beta", b, children[1]}} {
		dec, v, err := driver.Evaluate(tt.d, children, tt.ours, nil)
		if err != nil || !dec.Holds {
			t.Fatalf("%s: Evaluate = %+v, %v: the broken order should make it think it holds", tt.name, dec, err)
		}
		err = driver.CheckGrant(v)
		if tt.name == "alpha" && err != nil {
			t.Errorf("alpha, created first: CheckGrant = %v, want nil", err)
		}
		if tt.name == "beta" && !errors.Is(err, driver.ErrKeyOrder) {
			t.Errorf("beta, created second but sorted first: CheckGrant = %v, want ErrKeyOrder", err)
		}
	}
	shared := sequenceDriver{}
	if s := driver.Sort(shared, []string{children[1], children[0]}); s[0] != children[0] {
		t.Fatalf("SequenceKey order: %v", s)
	}
}

// sequenceDriver is a mutex that sorts by the shared sequence key.
type sequenceDriver struct{}

func (sequenceDriver) LockName() string            { return "any-" }
func (sequenceDriver) SortKey(child string) string { return driver.SequenceKey(child) }
func (sequenceDriver) Node() driver.Node           { return driver.Node{} }
func (sequenceDriver) Decide(v driver.View) driver.Decision {
	return driver.Exclusive().Decide(v)
}

func TestCheckGrant(t *testing.T) {
	tests := []struct {
		name   string
		sorted []string
		index  int
		bad    bool
	}{
		{"in order", []string{"x-0000000001", "x-0000000002", "x-0000000003"}, 0, false},
		{"jumped", []string{"x-0000000002", "x-0000000001"}, 0, true},
		{"earlier node before us is fine", []string{"x-0000000001", "x-0000000002"}, 1, false},
		{"fixed names are not compared", []string{"x-0000000002", "fixed"}, 0, false},
		{"downgrade: same sequence", []string{"__WRIT__0000000004", "__READ__0000000004", "__WRIT__0000000005"}, 1, false},
		{"index out of range", []string{"x-0000000001"}, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := driver.CheckGrant(driver.View{Sorted: tt.sorted, Index: tt.index})
			if got := errors.Is(err, driver.ErrKeyOrder); got != tt.bad {
				t.Fatalf("CheckGrant = %v, want ErrKeyOrder: %v", err, tt.bad)
			}
		})
	}
}
