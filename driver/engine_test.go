package driver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// node builds a protected contender name as Curator does.
func node(uuid, lockName, seq string) string {
	return "_c_" + uuid + "-" + lockName + seq
}

const (
	u1 = "53345f98-9423-4e0c-a7b5-9f819e3ec2e1"
	u2 = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	u3 = "ffffffff-ffff-4fff-bfff-ffffffffffff"
)

func TestKeyAfter(t *testing.T) {
	tests := []struct {
		child, lockName, want string
	}{
		{node(u1, "lock-", "0000000007"), "lock-", "0000000007"},
		{"lock-0000000003", "lock-", "0000000003"},
		{"foo", "lock-", "foo"},
		{"0", "lock-", "0"},
		{"lock-lock-0000000001", "lock-", "0000000001"}, // last occurrence wins
		{"a-lock-b-lock-", "lock-", ""},                 // lock name at the very end
		{"lock-0000000001", "", "lock-0000000001"},      // empty lock name: whole name
	}
	for _, tt := range tests {
		if got := KeyAfter(tt.child, tt.lockName); got != tt.want {
			t.Errorf("KeyAfter(%q, %q) = %q, want %q", tt.child, tt.lockName, got, tt.want)
		}
	}
}

func TestSortKeys(t *testing.T) {
	tests := []struct {
		name  string
		d     Driver
		child string
		want  string
	}{
		{"exclusive protected", Exclusive(), node(u1, "lock-", "0000000007"), "0000000007"},
		{"exclusive foreign", Exclusive(), "foo", "foo"},
		{"write on read node", Write(), node(u1, "__READ__", "0000000002"), "0000000002"},
		{"write on write node", Write(), node(u1, "__WRIT__", "0000000001"), "0000000001"},
		{"read on write node", Read(""), node(u1, "__WRIT__", "0000000001"), "0000000001"},
		{"read strips READ then WRIT", Read(""), "__READ__x__WRIT__5", "5"},
		{"read: WRIT before READ", Read(""), "__WRIT__x__READ__5", "5"},
		{"rw foreign", Write(), "lock-0000000001", "lock-0000000001"},
		{"semaphore lease", Semaphore(3), node(u1, "lease-", "0000000004"), "0000000004"},
		{"standard custom", Standard("job-", 2), "job-0000000009", "0000000009"},
	}
	for _, tt := range tests {
		if got := tt.d.SortKey(tt.child); got != tt.want {
			t.Errorf("%s: SortKey(%q) = %q, want %q", tt.name, tt.child, got, tt.want)
		}
	}
}

func TestSort(t *testing.T) {
	tests := []struct {
		name     string
		d        Driver
		children []string
		want     []string
	}{
		{"by sequence not uuid", Exclusive(),
			[]string{node(u3, "lock-", "0000000001"), node(u1, "lock-", "0000000003"), node(u2, "lock-", "0000000002")},
			[]string{node(u3, "lock-", "0000000001"), node(u2, "lock-", "0000000002"), node(u1, "lock-", "0000000003")}},
		{"foreign children kept, by whole name", Exclusive(),
			[]string{"lock-0000000005", "foo", "0", "nested", "lock-0000000004"},
			[]string{"0", "lock-0000000004", "lock-0000000005", "foo", "nested"}},
		{"reads and writes interleave", Write(),
			[]string{node(u1, "__READ__", "0000000003"), node(u2, "__WRIT__", "0000000002"), node(u3, "__READ__", "0000000001")},
			[]string{node(u3, "__READ__", "0000000001"), node(u2, "__WRIT__", "0000000002"), node(u1, "__READ__", "0000000003")}},
		{"equal keys keep listing order", Read(""),
			[]string{node(u3, "__WRIT__", "0000000004"), node(u1, "__READ__", "0000000004"), node(u2, "__WRIT__", "0000000001")},
			[]string{node(u2, "__WRIT__", "0000000001"), node(u3, "__WRIT__", "0000000004"), node(u1, "__READ__", "0000000004")}},
		{"wrapped sequence sorts first, as in Curator", Exclusive(),
			[]string{"lock-2147483647", "lock--2147483648", "lock-0000000000"},
			[]string{"lock--2147483648", "lock-0000000000", "lock-2147483647"}},
		{"nil driver sorts by name", nil, []string{"b", "a"}, []string{"a", "b"}},
		{"empty", Exclusive(), nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.children)
			got := Sort(tt.d, tt.children)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Sort = %q, want %q", got, tt.want)
			}
			if !slices.Equal(in, tt.children) {
				t.Fatalf("Sort modified its input: %q", tt.children)
			}
		})
	}
}

func TestSortStableReversed(t *testing.T) {
	// Equal keys in both listing orders: each keeps its own order.
	a, b := node(u1, "__READ__", "0000000009"), node(u2, "__WRIT__", "0000000009")
	for _, in := range [][]string{{a, b}, {b, a}} {
		if got := Sort(Write(), in); !slices.Equal(got, in) {
			t.Fatalf("Sort(%q) = %q, want the same order", in, got)
		}
	}
}

func TestEvaluateOwnNodeMissing(t *testing.T) {
	children := []string{"lock-0000000001", "lock-0000000002"}
	for _, our := range []string{"lock-0000000003", "lock-000000000", "", "ock-0000000001"} {
		dec, v, err := Evaluate(Exclusive(), children, our, nil)
		if !errors.Is(err, ErrOwnNodeMissing) {
			t.Fatalf("Evaluate(%q) err = %v, want ErrOwnNodeMissing", our, err)
		}
		if dec != (Decision{}) || v.Index != -1 || len(v.Sorted) != 2 {
			t.Fatalf("Evaluate(%q) = %+v, %+v", our, dec, v)
		}
	}
	if _, _, err := Evaluate(Exclusive(), nil, "lock-0000000001", nil); !errors.Is(err, ErrOwnNodeMissing) {
		t.Fatalf("empty children: err = %v", err)
	}
}

func TestEvaluateNilDriver(t *testing.T) {
	if _, _, err := Evaluate(nil, []string{"a"}, "a", nil); !errors.Is(err, ErrNilDriver) {
		t.Fatalf("err = %v, want ErrNilDriver", err)
	}
}

func TestEvaluateFullPath(t *testing.T) {
	children := []string{"lock-0000000002", "lock-0000000001"}
	dec, v, err := Evaluate(Exclusive(), children, "/locks/a/lock-0000000002", nil)
	if err != nil || v.Index != 1 || dec.WatchNode != "lock-0000000001" {
		t.Fatalf("Evaluate = %+v, %d, %v", dec, v.Index, err)
	}
}

// TestSortMatchesStableReference checks Sort against sort.SliceStable on listings with
// many equal keys, foreign names and both lock names.
func TestSortMatchesStableReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	parts := []string{"__READ__", "__WRIT__", "lock-", ""}
	for round := range 200 {
		n := r.IntN(60)
		children := make([]string, n)
		for i := range children {
			children[i] = fmt.Sprintf("_c_%d-%s%010d", r.IntN(1000), parts[r.IntN(len(parts))], r.IntN(8))
		}
		for _, d := range []Driver{Exclusive(), Write(), Read(""), Semaphore(3)} {
			want := slices.Clone(children)
			sort.SliceStable(want, func(i, j int) bool { return d.SortKey(want[i]) < d.SortKey(want[j]) })
			if got := Sort(d, children); !slices.Equal(got, want) {
				t.Fatalf("round %d %s: Sort = %q, want %q", round, d.LockName(), got, want)
			}
		}
	}
}
