package driver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Sort's numeric fast path (every key ten digits) must give exactly the byte-wise, stable
// order of sortKeyed, which any other listing takes: duplicates keep their listing order, and
// a listing with one key of another form (an overflowed sequence, a fixed name) sorts by bytes.
func TestSortSequencesAsBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 27))
	seqName := func(seq uint64) string {
		return fmt.Sprintf("_c_%08x-9423-4e0c-a7b5-9f819e3ec2e1-lock-%010d", r.Uint32(), seq)
	}
	for _, tc := range []struct {
		name     string
		children []string
	}{
		{"empty", nil},
		{"one", []string{"lock-0000000007"}},
		{"sequences", []string{"lock-0000000010", "lock-0000000002", "lock-9999999999", "lock-0000000000"}},
		{"duplicate keys keep listing order", []string{"b-lock-0000000003", "a-lock-0000000003", "c-lock-0000000001"}},
		{"largest sequences, tied", []string{"b-lock-9999999999", "a-lock-9999999999", "c-lock-9999999998", "d-lock-0000000000"}},
		{"overflowed sequence", []string{"lock-0000000002", "lock--2147483648", "lock-0000000001"}},
		{"short key", []string{"lock-0000000002", "lock-12", "lock-0000000001"}},
		{"letters", []string{"lock-00000000a1", "lock-0000000002", "lock-0000000001"}},
		{"no lock name", []string{"zzz0000000000", "lock-0000000001"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := Sort(Exclusive(), tc.children), sortKeyed(Exclusive(), tc.children); !slices.Equal(got, want) {
				t.Fatalf("Sort = %q, want the byte-wise order %q", got, want)
			}
		})
	}
	for i := range 200 {
		n := r.IntN(80)
		children := make([]string, n)
		for j := range children {
			children[j] = seqName(r.Uint64N(1<<uint(r.IntN(34)+1)) % 10_000_000_000)
		}
		if got, want := Sort(Exclusive(), children), sortKeyed(Exclusive(), children); !slices.Equal(got, want) {
			t.Fatalf("random listing %d: Sort = %q, want the byte-wise order %q", i, got, want)
		}
	}
}

// The contended acquire sorts its directory on every listing (issue 27): up to 64 sequential
// contenders cost one allocation, the result; more, or a key of another form, cost two.
func TestSortAllocations(t *testing.T) {
	names := func(n int, odd bool) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("_c_3f1c2a9e-9423-4e0c-a7b5-9f819e3ec2e1-lock-%010d", n-i)
		}
		if odd {
			out[0] = "lock-fixed"
		}
		return out
	}
	for _, tc := range []struct {
		n    int
		odd  bool
		want float64
	}{{8, false, 1}, {64, false, 1}, {65, false, 2}, {8, true, 2}} {
		children := names(tc.n, tc.odd)
		d := Exclusive()
		got := testing.AllocsPerRun(50, func() { _ = Sort(d, children) })
		if got != tc.want {
			t.Errorf("Sort of %d children (a non-sequence among them: %v): %v allocations, want %v", tc.n, tc.odd, got, tc.want)
		}
	}
}
