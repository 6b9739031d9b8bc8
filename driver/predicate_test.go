package driver

import (
	"errors"
	"testing"
)

func TestDecisions(t *testing.T) {
	w := func(u, seq string) string { return node(u, "__WRIT__", seq) }
	r := func(u, seq string) string { return node(u, "__READ__", seq) }
	m := func(u, seq string) string { return node(u, "lock-", seq) }
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
			Decision{WatchNode: "0", GoneHolds: true}},
		{"foreign 'foo' sorts after sequences", Exclusive(), []string{"foo", m(u1, "0000000001")}, m(u1, "0000000001"),
			Decision{Holds: true}},
		{"standard maxLeases 2 holds at index 1", Standard("lock-", 2),
			[]string{"lock-0000000001", "lock-0000000002", "lock-0000000003"}, "lock-0000000002", Decision{Holds: true}},
		{"standard maxLeases 2 watches two ahead", Standard("lock-", 2),
			[]string{"lock-0000000004", "lock-0000000001", "lock-0000000002", "lock-0000000003"}, "lock-0000000004",
			Decision{WatchNode: "lock-0000000002"}},
		{"standard maxLeases 2 watching the first: its deletion proves it", Standard("lock-", 2),
			[]string{"lock-0000000001", "lock-0000000002", "lock-0000000003"}, "lock-0000000003",
			Decision{WatchNode: "lock-0000000001", GoneHolds: true}},
		{"standard maxLeases 0 behaves as 1", Standard("lock-", 0),
			[]string{"lock-0000000001", "lock-0000000002"}, "lock-0000000002", Decision{WatchNode: "lock-0000000001", GoneHolds: true}},
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
		{"reader with no writer holds", Read(""), []string{r(u2, "0000000001"), r(u1, "0000000002")}, r(u1, "0000000002"),
			Decision{Holds: true}},
		{"reader ignores later writers", Read(""), []string{w(u2, "0000000003"), r(u1, "0000000002"), w(u3, "0000000004")},
			r(u1, "0000000002"), Decision{Holds: true}},
		{"reader watches FIRST writer, not predecessor", Read(""),
			[]string{r(u1, "0000000005"), w(u2, "0000000001"), r(u3, "0000000002"), w(u3, "0000000003"), r(u2, "0000000004")},
			r(u1, "0000000005"), Decision{WatchNode: w(u2, "0000000001")}},
		{"reader after one writer", Read(""),
			[]string{w(u2, "0000000001"), r(u1, "0000000002")}, r(u1, "0000000002"), Decision{WatchNode: w(u2, "0000000001")}},
		{"downgrade holds while its writer is listed", Read(w(u2, "0000000001")),
			[]string{w(u2, "0000000001"), w(u3, "0000000002"), r(u2, "0000000001")}, r(u2, "0000000001"), Decision{Holds: true}},
		{"later writer waits behind downgraded read", Write(),
			[]string{w(u2, "0000000001"), w(u3, "0000000002"), r(u2, "0000000001")}, w(u3, "0000000002"),
			Decision{WatchNode: r(u2, "0000000001")}},
		{"reader: foreign node is not a writer", Read(""), []string{"0", r(u1, "0000000001")}, r(u1, "0000000001"),
			Decision{Holds: true}},
		// Semaphore.
		{"semaphore under max", Semaphore(2), []string{node(u1, "lease-", "0000000001")}, node(u1, "lease-", "0000000001"),
			Decision{Holds: true}},
		{"semaphore at max", Semaphore(2), []string{node(u2, "lease-", "0000000002"), node(u1, "lease-", "0000000001")},
			node(u2, "lease-", "0000000002"), Decision{Holds: true}},
		{"semaphore over max watches dir", Semaphore(2),
			[]string{node(u1, "lease-", "0000000001"), node(u2, "lease-", "0000000002"), node(u3, "lease-", "0000000003")},
			node(u1, "lease-", "0000000001"), Decision{WatchDir: true}},
		{"semaphore counts other sequential children", Semaphore(1), []string{node(u1, "lease-", "0000000001"), "foo-0000000002"},
			node(u1, "lease-", "0000000001"), Decision{WatchDir: true}},
		{"semaphore max 0 never holds", Semaphore(0), []string{"lease-0000000001"}, "lease-0000000001", Decision{WatchDir: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, v, err := Evaluate(tt.d, tt.children, tt.our, nil)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if v.Sorted[v.Index] != tt.our {
				t.Fatalf("sorted[%d] = %q, want our node %q", v.Index, v.Sorted[v.Index], tt.our)
			}
			if got != tt.want {
				t.Fatalf("Decision = %+v, want %+v (sorted %q)", got, tt.want, v.Sorted)
			}
		})
	}
}

// A semaphore child whose name ends in no sequence is a foreign node, not a lease that takes a
// slot for ever (issue 25.3).
func TestSemaphoreForeignChild(t *testing.T) {
	for _, d := range []Driver{Semaphore(3), SharedSemaphore("/count", 1)} {
		dec, _, err := Evaluate(d, []string{"lease-0000000001", "junk"}, "lease-0000000001", EncodeCount(3))
		var fe *ForeignNodeError
		if err != nil || !errors.As(dec.Err, &fe) || fe.Name != "junk" || !errors.Is(dec.Err, ErrForeignNode) {
			t.Fatalf("%T: %+v, %v: want a ForeignNodeError naming junk", d, dec, err)
		}
	}
}

func TestDecideOutOfRange(t *testing.T) {
	sorted := []string{"lock-0000000001"}
	for _, d := range []Driver{Exclusive(), Write(), Read(""), Read("__WRIT__0000000001"), Semaphore(5), Standard("x", 3),
		SharedSemaphore("/count", 1)} {
		for _, i := range []int{-1, 1, 100} {
			if got := d.Decide(View{Sorted: sorted, Index: i}); got != (Decision{}) {
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
	if got := Read("").LockName(); got != "__READ__" {
		t.Errorf("Read LockName = %q", got)
	}
}

func TestDecideDoesNotAllocate(t *testing.T) {
	sorted := Sort(Read(""), []string{node(u1, "__WRIT__", "0000000001"), node(u2, "__READ__", "0000000002"),
		node(u3, "__READ__", "0000000003")})
	for _, d := range []Driver{Exclusive(), Write(), Read(""), Read(node(u1, "__WRIT__", "0000000001")), Semaphore(2),
		SharedSemaphore("/count", 1)} {
		v := View{Sorted: sorted, Index: 2, Input: EncodeCount(5)}
		if n := testing.AllocsPerRun(100, func() { _ = d.Decide(v) }); n != 0 {
			t.Errorf("%s Decide allocates %v times", d.LockName(), n)
		}
	}
}

// Review defect 1, the pure half: a downgrading read whose writer is not in the deciding
// listing must fail, even though no writer sorts before it (the queued writer W7 may
// already hold the write lock).
func TestDowngradeNeedsItsWriterListed(t *testing.T) {
	ourWriter := node(u1, "__WRIT__", "0000000005")
	read := node(u1, "__READ__", "0000000005")
	other := node(u2, "__WRIT__", "0000000007")
	d := Read(ourWriter)
	if got := d.Node(); got.Fixed != "0000000005" {
		t.Fatalf("downgrade Node = %+v, want Fixed 0000000005", got)
	}
	dec, _, err := Evaluate(d, []string{other, read}, read, nil)
	if err != nil || dec.Holds || !errors.Is(dec.Err, ErrWriterMissing) {
		t.Fatalf("writer gone: Decision %+v, %v; want Err ErrWriterMissing", dec, err)
	}
	dec, _, err = Evaluate(d, []string{other, read, ourWriter}, read, nil)
	if err != nil || !dec.Holds {
		t.Fatalf("writer listed: Decision %+v, %v; want Holds", dec, err)
	}
	if got := Read("").Node(); got.Fixed != "" || got.Data != nil {
		t.Fatalf("plain read Node = %+v, want zero", got)
	}
}

func TestSharedSemaphoreDecisions(t *testing.T) {
	l := func(seq string) string { return node(u1, "lease-", seq) }
	kids := []string{l("0000000001"), l("0000000002"), l("0000000003")}
	tests := []struct {
		name  string
		need  int
		input []byte
		holds bool
		dir   bool
		err   error
	}{
		{"under the count", 1, EncodeCount(3), true, false, nil},
		{"over the count waits on the directory", 1, EncodeCount(2), false, true, nil},
		{"count below need fails fast", 3, EncodeCount(2), false, false, ErrCountTooLow},
		{"count zero fails fast", 1, EncodeCount(0), false, false, ErrCountTooLow},
		{"negative count fails fast", 1, EncodeCount(-1), false, false, ErrCountTooLow},
		{"malformed count", 1, []byte("abc"), false, false, ErrBadCount},
		{"missing count data", 1, nil, false, false, ErrBadCount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := SharedSemaphore("/c", tt.need)
			if d.Input() != "/c" {
				t.Fatalf("Input = %q", d.Input())
			}
			dec, _, err := Evaluate(d, kids, l("0000000003"), tt.input)
			if err != nil {
				t.Fatal(err)
			}
			if dec.Holds != tt.holds || dec.WatchDir != tt.dir || !errors.Is(dec.Err, tt.err) || (tt.err == nil) != (dec.Err == nil) {
				t.Fatalf("Decision %+v, want holds %v dir %v err %v", dec, tt.holds, tt.dir, tt.err)
			}
		})
	}
}

func TestCountRoundTrip(t *testing.T) {
	for _, n := range []int32{0, 1, 7, -1, 1 << 30, -(1 << 31)} {
		got, err := DecodeCount(EncodeCount(n))
		if err != nil || got != int(n) {
			t.Fatalf("DecodeCount(EncodeCount(%d)) = %d, %v", n, got, err)
		}
	}
}
