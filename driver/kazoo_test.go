package driver_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/driver"
)

// Nodes as they appear on a kazoo lock path: kazoo's (uuid hex, no protected prefix) and ours.
func kzLock(seq string) string  { return "9f0c1e2d3c4b5a69788796a5b4c3d2e1__lock__" + seq }
func kzRead(seq string) string  { return "0123456789abcdef0123456789abcdef__rlock__" + seq }
func ourLock(seq string) string { return "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-__lock__" + seq }
func ourRead(seq string) string { return "_c_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-__rlock__" + seq }

func TestKazooDecisions(t *testing.T) {
	lock, read := driver.KazooLock(), driver.KazooRead()
	tests := []struct {
		name     string
		d        driver.Driver
		children []string
		our      string
		want     driver.Decision
	}{
		{"alone holds", lock, []string{ourLock("0000000004")}, ourLock("0000000004"), driver.Decision{Holds: true}},
		{"first by sequence holds, whatever the names", lock,
			[]string{kzLock("0000000009"), ourLock("0000000004"), kzRead("0000000005")}, ourLock("0000000004"),
			driver.Decision{Holds: true}},
		{"writer waits for an earlier kazoo lock", lock,
			[]string{ourLock("0000000004"), kzLock("0000000003")}, ourLock("0000000004"),
			driver.Decision{WatchNode: kzLock("0000000003"), GoneHolds: true}},
		{"writer waits for an earlier kazoo reader (kazoo WriteLock)", lock,
			[]string{ourLock("0000000004"), kzRead("0000000002")}, ourLock("0000000004"),
			driver.Decision{WatchNode: kzRead("0000000002"), GoneHolds: true}},
		{"writer watches its immediate predecessor", lock,
			[]string{kzLock("0000000001"), ourLock("0000000007"), kzRead("0000000005"), ourRead("0000000003")},
			ourLock("0000000007"), driver.Decision{WatchNode: kzRead("0000000005")}},
		{"a uuid full of digits does not fool the sort", lock,
			[]string{"_c_00000000-0000-4000-8000-000000000000-__lock__0000000009", kzLock("0000000002")},
			"_c_00000000-0000-4000-8000-000000000000-__lock__0000000009",
			driver.Decision{WatchNode: kzLock("0000000002"), GoneHolds: true}},
		{"writer: a foreign sequential node blocks", lock,
			[]string{"other-0000000001", ourLock("0000000002")}, ourLock("0000000002"),
			driver.Decision{WatchNode: "other-0000000001", GoneHolds: true}},
		{"writer: a node without a sequence sorts after ours", lock,
			[]string{"config", ourLock("0000000002")}, ourLock("0000000002"), driver.Decision{Holds: true}},
		{"reader with only earlier readers holds", read,
			[]string{kzRead("0000000001"), ourRead("0000000003"), ourRead("0000000002")}, ourRead("0000000003"),
			driver.Decision{Holds: true}},
		{"reader ignores later writers", read,
			[]string{kzLock("0000000006"), ourRead("0000000003"), ourLock("0000000004")}, ourRead("0000000003"),
			driver.Decision{Holds: true}},
		{"reader waits for an earlier kazoo lock", read,
			[]string{kzLock("0000000001"), ourRead("0000000003")}, ourRead("0000000003"),
			driver.Decision{WatchNode: kzLock("0000000001"), GoneHolds: true}},
		{"reader watches the nearest earlier writer, skipping readers", read,
			[]string{ourLock("0000000001"), kzLock("0000000002"), kzRead("0000000003"), ourRead("0000000004")},
			ourRead("0000000004"), driver.Decision{WatchNode: kzLock("0000000002")}},
		{"reader: the only writer ahead, behind readers, proves the grant", read,
			[]string{kzRead("0000000001"), kzLock("0000000002"), kzRead("0000000003"), ourRead("0000000004")},
			ourRead("0000000004"), driver.Decision{WatchNode: kzLock("0000000002"), GoneHolds: true}},
		{"reader: a foreign sequential node counts as a writer", read,
			[]string{"other-0000000001", ourRead("0000000002")}, ourRead("0000000002"),
			driver.Decision{WatchNode: "other-0000000001", GoneHolds: true}},
		{"reader: Curator's read name is no reader here", read,
			[]string{"_c_x-__READ__0000000001", ourRead("0000000002")}, ourRead("0000000002"),
			driver.Decision{WatchNode: "_c_x-__READ__0000000001", GoneHolds: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, v, err := driver.Evaluate(tt.d, tt.children, tt.our, nil)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if got != tt.want {
				t.Fatalf("Decision = %+v, want %+v (sorted %q)", got, tt.want, v.Sorted)
			}
			if got.Holds || got.GoneHolds {
				if err := driver.CheckGrant(v); err != nil {
					t.Fatalf("CheckGrant refuses a grant in sequence order: %v", err)
				}
			}
		})
	}
}

// kazooContenders is kazoo's contender pattern (kazoo.recipe.lock.Lock.__init__) for the given
// names: the pattern, then the sequence, at the end of the name.
func kazooContenders(names ...string) *regexp.Regexp {
	return regexp.MustCompile(`(?:` + strings.Join(names, "|") + `)(-?\d{10})$`)
}

// kazooPredecessor is kazoo 2.9's Lock._get_predecessor (the fix of kazoo#649, in 2.9.0):
// among the children its pattern matches, the one with the largest sequence below ours, or ""
// when there is none (kazoo then holds).
func kazooPredecessor(re *regexp.Regexp, children []string, ours string) string {
	own := ours[len(ours)-10:]
	best, bestSeq := "", ""
	for _, c := range children {
		m := re.FindStringSubmatch(c)
		if m == nil || m[1] >= own || m[1] <= bestSeq && best != "" {
			continue
		}
		best, bestSeq = c, m[1]
	}
	return best
}

// On listings of kazoo's and our nodes only, our drivers decide as kazoo does: a writer (our
// KazooLock, kazoo's WriteLock) waits for every earlier node, a reader for every earlier
// "__lock__" node, and both watch the node kazoo's _get_predecessor names. Our mutex is kazoo's
// Lock wherever no reader shares the path.
func TestKazooPredicatesMatchKazoo(t *testing.T) {
	writeLock := kazooContenders("__lock__", "__rlock__") // WriteLock._EXCLUDE_NAMES
	readLock := kazooContenders("__lock__")               // ReadLock._EXCLUDE_NAMES (and Lock's)
	makers := []func(string) string{kzLock, kzRead, ourLock, ourRead}
	rng := rand.New(rand.NewPCG(19, 2))
	for round := 0; round < 2000; round++ {
		n := 1 + rng.IntN(8)
		readers := rng.IntN(3) > 0 // a third of the listings hold writers only (a kazoo Lock path)
		var kids []string
		for seq := 0; seq < n; seq++ {
			mk := makers[rng.IntN(len(makers))]
			if !readers {
				mk = makers[2*rng.IntN(2)] // kzLock or ourLock
			}
			kids = append(kids, mk(fmt.Sprintf("%010d", seq*3+rng.IntN(3))))
		}
		rng.Shuffle(len(kids), func(i, j int) { kids[i], kids[j] = kids[j], kids[i] })
		ours := kids[rng.IntN(len(kids))]
		d, re := driver.KazooLock(), writeLock
		if driver.IsKazooReader(ours) {
			d, re = driver.KazooRead(), readLock
		} else if !readers {
			re = readLock // kazoo's Lock: the same as WriteLock when there are no readers
		}
		got, _, err := driver.Evaluate(d, kids, ours, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := kazooPredecessor(re, kids, ours)
		if got.Holds != (want == "") || got.WatchNode != want {
			t.Fatalf("listing %q, ours %s: we decide %+v, kazoo's predecessor is %q", kids, ours, got, want)
		}
	}
}

// Curator's sort cannot join: its InterProcessMutex keys kazoo's nodes by their whole names,
// which sort after its own sequences, so it would hold ahead of an earlier kazoo holder. The
// acquire loop's CheckGrant catches that in Go; Curator has no such check.
func TestCuratorSortJumpsAKazooQueue(t *testing.T) {
	kids := []string{kzLock("0000000001"), "_c_x-lock-0000000002"}
	dec, v, err := driver.Evaluate(driver.Exclusive(), kids, kids[1], nil)
	if err != nil || !dec.Holds {
		t.Fatalf("Curator's mutex on a kazoo path: %+v, %v; want a (wrong) grant", dec, err)
	}
	if err := driver.CheckGrant(v); !errors.Is(err, driver.ErrKeyOrder) {
		t.Fatalf("CheckGrant = %v, want ErrKeyOrder", err)
	}
}

func TestKazooNames(t *testing.T) {
	tests := []struct {
		name         string
		kazoo, reads bool
	}{
		{kzLock("0000000001"), true, false},
		{kzRead("0000000001"), true, true},
		{ourLock("0000000001"), false, false},
		{ourRead("0000000001"), false, true},
		{"9F0C1E2D3C4B5A69788796A5B4C3D2E1__lock__0000000001", false, false}, // uuid.hex is lowercase
		{"9f0c1e2d3c4b5a69788796a5b4c3d2e1__lock__", false, false},
		{"9f0c1e2d3c4b5a69788796a5b4c3d2e1__sem__0000000001", false, false},
		{"__rlock__0000000001", false, true},
		{"x__rlock__00000001", false, false},
		{"_c_x-lock-0000000001", false, false},
	}
	for _, tt := range tests {
		if got := driver.IsKazooNode(tt.name); got != tt.kazoo {
			t.Errorf("IsKazooNode(%q) = %v, want %v", tt.name, got, tt.kazoo)
		}
		if got := driver.IsKazooReader(tt.name); got != tt.reads {
			t.Errorf("IsKazooReader(%q) = %v, want %v", tt.name, got, tt.reads)
		}
	}
	if driver.KazooLock().LockName() != "__lock__" || driver.KazooRead().LockName() != "__rlock__" {
		t.Fatal("kazoo lock names")
	}
}

func TestKazooDecideDoesNotAllocate(t *testing.T) {
	sorted := []string{kzRead("0000000001"), kzLock("0000000002"), ourRead("0000000003"), ourLock("0000000004")}
	for _, d := range []driver.Driver{driver.KazooLock(), driver.KazooRead()} {
		for i := range sorted {
			v := driver.View{Sorted: sorted, Index: i}
			if n := testing.AllocsPerRun(100, func() { d.Decide(v) }); n != 0 {
				t.Errorf("%s Decide at %d allocates %v times", d.LockName(), i, n)
			}
		}
	}
	for _, i := range []int{-1, len(sorted)} {
		if got := driver.KazooRead().Decide(driver.View{Sorted: sorted, Index: i}); got != (driver.Decision{}) {
			t.Errorf("Decide out of range = %+v", got)
		}
	}
	if !slices.Equal(driver.Sort(driver.KazooLock(), []string{ourLock("0000000002"), kzRead("0000000001")}),
		[]string{kzRead("0000000001"), ourLock("0000000002")}) {
		t.Error("Sort does not order by sequence")
	}
}
