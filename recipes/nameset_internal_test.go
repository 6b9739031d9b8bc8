package recipes

import (
	"fmt"
	"sync"
	"testing"
)

func TestNameSet(t *testing.T) {
	var s nameSet
	steps := []struct {
		op, name string
		want     map[string]bool // has, after the step
	}{
		{"has", "a", map[string]bool{"a": false}},
		{"add", "a", map[string]bool{"a": true, "b": false}},
		{"add", "a", map[string]bool{"a": true}}, // twice: still one
		{"add", "b", map[string]bool{"a": true, "b": true}},
		{"remove", "a", map[string]bool{"a": false, "b": true}},
		{"remove", "a", map[string]bool{"a": false, "b": true}}, // twice: a no-op
		{"remove", "zz", map[string]bool{"b": true}},
		{"remove", "b", map[string]bool{"a": false, "b": false}},
	}
	for i, st := range steps {
		switch st.op {
		case "add":
			s.add(st.name)
		case "remove":
			s.remove(st.name)
		}
		for name, want := range st.want {
			if got := s.has(name); got != want {
				t.Fatalf("step %d (%s %s): has(%q) = %v, want %v", i, st.op, st.name, name, got, want)
			}
		}
		if int(s.n.Load()) != len(s.m) {
			t.Fatalf("step %d: count %d, set %v", i, s.n.Load(), s.m)
		}
	}
}

// TestNameSetConcurrent adds and removes from many goroutines (run with -race); the count
// ends at zero.
func TestNameSetConcurrent(t *testing.T) {
	var s nameSet
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				name := fmt.Sprintf("n-%d-%d", g, i%7)
				s.add(name)
				if !s.has(name) {
					t.Error("a name just added is missing")
					return
				}
				s.remove(name)
			}
		})
	}
	wg.Wait()
	if s.n.Load() != 0 || len(s.m) != 0 {
		t.Fatalf("after all removes: count %d, set %v", s.n.Load(), s.m)
	}
}

// TestNameSetAllocations: a grant's add and remove allocate nothing once the set exists (the
// sync.Map it replaces allocated an entry per add: issue 27), and asking an empty set takes no
// lock.
func TestNameSetAllocations(t *testing.T) {
	var s nameSet
	s.add("x")
	s.remove("x")
	name := "_c_00000000-0000-0000-0000-000000000000-lock-0000000001"
	if n := testing.AllocsPerRun(1000, func() {
		s.add(name)
		_ = s.has(name)
		s.remove(name)
	}); n != 0 {
		t.Errorf("add+has+remove: %v allocations, want 0", n)
	}
}
