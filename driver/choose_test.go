package driver_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/driver"
)

// evaluateGrant is what Choose must equal: Evaluate, then CheckGrant on a grant.
func evaluateGrant(d driver.Driver, children []string, ours string, input []byte) (driver.Decision, error, error) {
	dec, v, err := driver.Evaluate(d, children, ours, input)
	var grantErr error
	if err == nil && dec.Err == nil && (dec.Holds || dec.GoneHolds) {
		grantErr = driver.CheckGrant(v)
	}
	return dec, grantErr, err
}

// sameChoice fails t unless Choose and Evaluate-then-CheckGrant agree on children.
func sameChoice(t *testing.T, d driver.Driver, children []string, ours string, input []byte) {
	t.Helper()
	dec, grantErr, err := driver.Choose(d, children, ours, input)
	wdec, wgrantErr, werr := evaluateGrant(d, children, ours, input)
	if !reflect.DeepEqual(dec, wdec) || fmt.Sprint(grantErr) != fmt.Sprint(wgrantErr) || fmt.Sprint(err) != fmt.Sprint(werr) ||
		errors.Is(err, driver.ErrOwnNodeMissing) != errors.Is(werr, driver.ErrOwnNodeMissing) ||
		errors.Is(grantErr, driver.ErrKeyOrder) != errors.Is(wgrantErr, driver.ErrKeyOrder) {
		t.Fatalf("%T on %q, ours %q:\nChoose   %+v, %v, %v\nEvaluate %+v, %v, %v", d, children, ours,
			dec, grantErr, err, wdec, wgrantErr, werr)
	}
}

func TestChooseMatchesEvaluate(t *testing.T) {
	const u = "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-"
	tests := []struct {
		name     string
		children []string
		ours     string
	}{
		{"alone", []string{u + "lock-0000000007"}, u + "lock-0000000007"},
		{"first of three, listed last", []string{u + "lock-0000000009", u + "lock-0000000005", u + "lock-0000000003"}, u + "lock-0000000003"},
		{"second: the node ahead is first", []string{u + "lock-0000000009", u + "lock-0000000003", u + "lock-0000000005"}, u + "lock-0000000005"},
		{"third: the node just ahead", []string{u + "lock-0000000009", u + "lock-0000000003", u + "lock-0000000005"}, u + "lock-0000000009"},
		{"our node is missing", []string{u + "lock-0000000009", u + "lock-0000000003"}, u + "lock-0000000004"},
		{"a full path: its last segment", []string{"lock-0000000002", "lock-0000000001"}, "/a/b/lock-0000000002"},
		{"a stranger without a sequence", []string{"lock-0000000002", "stray", "lock-0000000001"}, "lock-0000000001"},
		{"equal sequences: listing order breaks the tie", []string{"x-lock-0000000004", "y-lock-0000000004", "lock-0000000009"}, "y-lock-0000000004"},
		{"equal sequences ahead: the one listed later is just ahead", []string{"x-lock-0000000004", "y-lock-0000000004", "lock-0000000009"}, "lock-0000000009"},
		{"equal sequences ahead, ours between", []string{"x-lock-0000000004", "lock-0000000009", "y-lock-0000000004", "z-lock-0000000009"}, "lock-0000000009"},
		{"a duplicate name: the first listed is ours", []string{"lock-0000000004", "lock-0000000001", "lock-0000000004"}, "lock-0000000004"},
		{"a grant that jumps the queue", []string{"a-lock-0000000005", "lock-b-0000000003"}, "a-lock-0000000005"},
		{"a watch whose deletion would jump the queue", []string{"lock-0000000002", "lock-0000000006", "q-lock-b-0000000001"}, "lock-0000000006"},
		{"several earlier after ours: the first in order is named", []string{"lock-0000000005", "lock-x0000000002", "lock-y0000000001", "lock-0000000001"}, "lock-0000000001"},
		{"a write behind reads", []string{"_c_a-__READ__0000000001", "_c_b-__WRIT__0000000002", "_c_c-__READ__0000000003"}, "_c_b-__WRIT__0000000002"},
		{"a write first", []string{"_c_a-__WRIT__0000000001", "_c_c-__READ__0000000003"}, "_c_a-__WRIT__0000000001"},
		{"a downgraded read without a sequence", []string{"_c_a-__READ__", "_c_b-__WRIT__0000000002"}, "_c_b-__WRIT__0000000002"},
		{"empty listing", nil, "lock-0000000001"},
		{"an empty name", []string{"", "lock-0000000001"}, "lock-0000000001"},
	}
	drivers := []driver.Driver{driver.Exclusive(), driver.Write(), driver.Standard("lock-", 1), driver.Standard("", 1),
		driver.Standard("lock-", 2), driver.Read(""), driver.Semaphore(1), driver.KazooLock()}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range drivers {
				sameChoice(t, d, tc.children, tc.ours, nil)
			}
		})
	}
}

// Choose's decisions on the usual listings, spelled out: the node ahead, and GoneHolds only for
// the exclusive lock's second in line.
func TestChooseDecides(t *testing.T) {
	kids := []string{"lock-0000000009", "lock-0000000003", "lock-0000000005"}
	tests := []struct {
		d    driver.Driver
		ours string
		want driver.Decision
	}{
		{driver.Exclusive(), "lock-0000000003", driver.Decision{Holds: true}},
		{driver.Exclusive(), "lock-0000000005", driver.Decision{WatchNode: "lock-0000000003", GoneHolds: true}},
		{driver.Exclusive(), "lock-0000000009", driver.Decision{WatchNode: "lock-0000000005"}},
		{driver.Write(), "lock-0000000005", driver.Decision{WatchNode: "lock-0000000003"}},
	}
	for _, tc := range tests {
		dec, grantErr, err := driver.Choose(tc.d, kids, tc.ours, nil)
		if err != nil || grantErr != nil || dec != tc.want {
			t.Errorf("%T, ours %s: %+v, %v, %v; want %+v", tc.d, tc.ours, dec, grantErr, err, tc.want)
		}
	}
}

// FuzzChoose: on any listing, Choose decides as Evaluate then CheckGrant do, with every driver.
func FuzzChoose(f *testing.F) {
	f.Add(strings.Join(nameSeeds, "\n"), uint8(1))
	f.Add("lock-0000000002\nlock-0000000001\nlock-0000000003", uint8(2))
	f.Add("a-lock-0000000005\nlock-b-0000000003", uint8(0))
	f.Add("_c_a-__READ__0000000001\n_c_b-__WRIT__0000000002\n_c_c-__READ__", uint8(1))
	f.Add("lock-0000000004\nlock-0000000001\nlock-0000000004", uint8(2))
	f.Fuzz(func(t *testing.T, listing string, our uint8) {
		children := strings.Split(listing, "\n")
		ours := children[int(our)%len(children)]
		for _, d := range fuzzDrivers() {
			sameChoice(t, d, children, ours, nil)
			sameChoice(t, d, children, "missing-0000000001", nil)
		}
	})
}

func BenchmarkChoose(b *testing.B) {
	for _, n := range []int{8, 64} {
		kids := make([]string, n)
		for i := range kids {
			kids[i] = fmt.Sprintf("_c_%08x-aaaa-bbbb-cccc-dddddddddddd-lock-%010d", i*7919, (i*37)%n+100)
		}
		ours := kids[n/2]
		d := driver.Exclusive()
		b.Run(fmt.Sprintf("n=%d/choose", n), func(b *testing.B) {
			for b.Loop() {
				_, _, _ = driver.Choose(d, kids, ours, nil)
			}
		})
		b.Run(fmt.Sprintf("n=%d/evaluate", n), func(b *testing.B) {
			for b.Loop() {
				_, _, _ = evaluateGrant(d, kids, ours, nil)
			}
		})
	}
}

// Choose allocates nothing for the standard one-lease drivers (Evaluate allocates the sorted
// view: 1 per listing of up to 64 children).
func TestChooseAllocatesNothing(t *testing.T) {
	for _, n := range []int{1, 8, 64, 200} {
		for _, d := range []driver.Driver{driver.Exclusive(), driver.Write()} {
			kids := make([]string, n)
			for i := range kids {
				kids[i] = fmt.Sprintf("_c_%08x-aaaa-bbbb-cccc-dddddddddddd-%s%010d", i*7919, d.LockName(), (i*37)%n+100)
			}
			if a := testing.AllocsPerRun(50, func() { _, _, _ = driver.Choose(d, kids, kids[n/2], nil) }); a != 0 {
				t.Errorf("%s, %d children: %v allocations, want 0", d.LockName(), n, a)
			}
		}
	}
}
