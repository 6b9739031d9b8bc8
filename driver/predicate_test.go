package driver

import (
	"testing"
)

func TestDecisions(t *testing.T) {
	w := func(u, seq string) string { return node(u, "__WRIT__", seq) }
	r := func(u, seq string) string { return node(u, "__READ__", seq) }
	m := func(u, seq string) string { return node(u, "lock-", seq) }
	owns := func() bool { return true }
	tests := []struct {
		name     string
		d        Driver
		children []string
		our      string
		want     Decision
	}{
		// Exclusive / Standard.
		{"mutex alone holds", Exclusive(), []string{m(u1, "0000000007")}, m(u1, "0000000007"), Decision{Holds: true}},
		{"mutex first holds", Exclusive(), []string{m(u2, "0000000009"), m(u1, "0000000007")}, m(u1, "0000000007"), Decision{Holds: true}},
		{"mutex watches predecessor", Exclusive(),
			[]string{m(u3, "0000000009"), m(u1, "0000000003"), m(u2, "0000000005")}, m(u3, "0000000009"),
			Decision{WatchNode: m(u2, "0000000005")}},
		{"foreign '0' blocks the mutex (CURATOR-43)", Exclusive(), []string{m(u1, "0000000001"), "0"}, m(u1, "0000000001"),
			Decision{WatchNode: "0"}},
		{"foreign 'foo' sorts after sequences", Exclusive(), []string{"foo", m(u1, "0000000001")}, m(u1, "0000000001"),
			Decision{Holds: true}},
		{"standard maxLeases 2 holds at index 1", Standard("lock-", 2),
			[]string{"lock-0000000001", "lock-0000000002", "lock-0000000003"}, "lock-0000000002", Decision{Holds: true}},
		{"standard maxLeases 2 watches two ahead", Standard("lock-", 2),
			[]string{"lock-0000000004", "lock-0000000001", "lock-0000000002", "lock-0000000003"}, "lock-0000000004",
			Decision{WatchNode: "lock-0000000002"}},
		{"standard maxLeases 0 behaves as 1", Standard("lock-", 0),
			[]string{"lock-0000000001", "lock-0000000002"}, "lock-0000000002", Decision{WatchNode: "lock-0000000001"}},
		// Write.
		{"writer first holds", Write(), []string{r(u2, "0000000002"), w(u1, "0000000001")}, w(u1, "0000000001"), Decision{Holds: true}},
		{"writer waits for earlier reader", Write(), []string{w(u1, "0000000002"), r(u2, "0000000001")}, w(u1, "0000000002"),
			Decision{WatchNode: r(u2, "0000000001")}},
		{"writer watches immediate predecessor", Write(),
			[]string{w(u1, "0000000001"), r(u2, "0000000002"), w(u3, "0000000003")}, w(u3, "0000000003"),
			Decision{WatchNode: r(u2, "0000000002")}},
		{"upgrade is never granted", Write(), []string{r(u1, "0000000001"), w(u1, "0000000002")}, w(u1, "0000000002"),
			Decision{WatchNode: r(u1, "0000000001")}},
		// Read.
		{"reader with no writer holds", Read(nil), []string{r(u2, "0000000001"), r(u1, "0000000002")}, r(u1, "0000000002"),
			Decision{Holds: true}},
		{"reader ignores later writers", Read(nil), []string{w(u2, "0000000003"), r(u1, "0000000002"), w(u3, "0000000004")},
			r(u1, "0000000002"), Decision{Holds: true}},
		{"reader watches FIRST writer, not predecessor", Read(nil),
			[]string{r(u1, "0000000005"), w(u2, "0000000001"), r(u3, "0000000002"), w(u3, "0000000003"), r(u2, "0000000004")},
			r(u1, "0000000005"), Decision{WatchNode: w(u2, "0000000001")}},
		{"reader after one writer", Read(func() bool { return false }),
			[]string{w(u2, "0000000001"), r(u1, "0000000002")}, r(u1, "0000000002"), Decision{WatchNode: w(u2, "0000000001")}},
		{"reader owning the write lock holds", Read(owns),
			[]string{w(u2, "0000000001"), r(u1, "0000000002")}, r(u1, "0000000002"), Decision{Holds: true}},
		{"downgrade read shares the writer's sequence", Read(owns),
			[]string{w(u2, "0000000001"), w(u3, "0000000002"), r(u2, "0000000001")}, r(u2, "0000000001"), Decision{Holds: true}},
		{"later writer waits behind downgraded read", Write(),
			[]string{w(u2, "0000000001"), w(u3, "0000000002"), r(u2, "0000000001")}, w(u3, "0000000002"),
			Decision{WatchNode: r(u2, "0000000001")}},
		{"reader: foreign node is not a writer", Read(nil), []string{"0", r(u1, "0000000001")}, r(u1, "0000000001"),
			Decision{Holds: true}},
		// Semaphore.
		{"semaphore under max", Semaphore(2), []string{node(u1, "lease-", "0000000001")}, node(u1, "lease-", "0000000001"),
			Decision{Holds: true}},
		{"semaphore at max", Semaphore(2), []string{node(u2, "lease-", "0000000002"), node(u1, "lease-", "0000000001")},
			node(u2, "lease-", "0000000002"), Decision{Holds: true}},
		{"semaphore over max watches dir", Semaphore(2),
			[]string{node(u1, "lease-", "0000000001"), node(u2, "lease-", "0000000002"), node(u3, "lease-", "0000000003")},
			node(u1, "lease-", "0000000001"), Decision{WatchDir: true}},
		{"semaphore counts foreign children", Semaphore(1), []string{node(u1, "lease-", "0000000001"), "foo"},
			node(u1, "lease-", "0000000001"), Decision{WatchDir: true}},
		{"semaphore max 0 never holds", Semaphore(0), []string{"lease-0000000001"}, "lease-0000000001", Decision{WatchDir: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sorted, idx, err := Evaluate(tt.d, tt.children, tt.our)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if sorted[idx] != tt.our {
				t.Fatalf("sorted[%d] = %q, want our node %q", idx, sorted[idx], tt.our)
			}
			if got != tt.want {
				t.Fatalf("Decision = %+v, want %+v (sorted %q)", got, tt.want, sorted)
			}
		})
	}
}

func TestDecideOutOfRange(t *testing.T) {
	sorted := []string{"lock-0000000001"}
	for _, d := range []Driver{Exclusive(), Write(), Read(nil), Semaphore(5), Standard("x", 3)} {
		for _, i := range []int{-1, 1, 100} {
			if got := d.Decide(sorted, i); got != (Decision{}) {
				t.Errorf("%s Decide(_, %d) = %+v, want zero", d.LockName(), i, got)
			}
		}
	}
}

func TestLockNames(t *testing.T) {
	for d, want := range map[Driver]string{Exclusive(): "lock-", Write(): "__WRIT__", Semaphore(1): "lease-",
		Standard("job-", 1): "job-"} {
		if got := d.LockName(); got != want {
			t.Errorf("LockName = %q, want %q", got, want)
		}
	}
	if got := Read(nil).LockName(); got != "__READ__" {
		t.Errorf("Read LockName = %q", got)
	}
}

func TestDecideDoesNotAllocate(t *testing.T) {
	sorted := Sort(Read(nil), []string{node(u1, "__WRIT__", "0000000001"), node(u2, "__READ__", "0000000002"),
		node(u3, "__READ__", "0000000003")})
	for _, d := range []Driver{Exclusive(), Write(), Read(func() bool { return false }), Semaphore(2)} {
		if n := testing.AllocsPerRun(100, func() { _ = d.Decide(sorted, 2) }); n != 0 {
			t.Errorf("%s Decide allocates %v times", d.LockName(), n)
		}
	}
}
