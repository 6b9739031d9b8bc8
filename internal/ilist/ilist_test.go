package ilist

import (
	"slices"
	"testing"
)

// elem is a test element: its links and a name.
type elem struct {
	links Links[elem]
	id    int
}

// elemLinks finds an elem's links.
type elemLinks struct{}

func (elemLinks) Links(e *elem) *Links[elem] { return &e.links }

type list = List[elem, elemLinks]

// check fails t unless l holds exactly want, in order, linked both ways.
func check(t *testing.T, l *list, want []*elem) {
	t.Helper()
	var fwd, back []*elem
	for x := l.Front(); x != nil; x = l.Next(x) {
		if fwd = append(fwd, x); len(fwd) > len(want)+1 {
			break // a cycle
		}
	}
	for x := l.Back(); x != nil; x = x.links.prev {
		if back = append(back, x); len(back) > len(want)+1 {
			break
		}
	}
	slices.Reverse(back)
	if !slices.Equal(fwd, want) || !slices.Equal(back, want) || l.Len() != len(want) {
		t.Fatalf("list forward %v, backward %v, Len %d; want %v", ids(fwd), ids(back), l.Len(), ids(want))
	}
	if len(want) > 0 && (want[0].links.prev != nil || want[len(want)-1].links.next != nil) {
		t.Fatalf("the ends of %v link outside the list", ids(want))
	}
}

// ids names the elements of xs.
func ids(xs []*elem) []int {
	var out []int
	for _, x := range xs {
		out = append(out, x.id)
	}
	return out
}

func TestList(t *testing.T) {
	type op struct {
		kind string // front, back, remove, pop, clear
		i    int    // the element (pop: the one expected, -1 for nil)
		ok   bool   // remove's expected result
	}
	tests := []struct {
		name string
		ops  []op
		want []int
	}{
		{"empty", nil, nil},
		{"push front", []op{{"front", 0, false}, {"front", 1, false}, {"front", 2, false}}, []int{2, 1, 0}},
		{"push back", []op{{"back", 0, false}, {"back", 1, false}, {"back", 2, false}}, []int{0, 1, 2}},
		{"both ends", []op{{"back", 0, false}, {"front", 1, false}, {"back", 2, false}}, []int{1, 0, 2}},
		{"remove head", []op{{"back", 0, false}, {"back", 1, false}, {"back", 2, false}, {"remove", 0, true}}, []int{1, 2}},
		{"remove middle", []op{{"back", 0, false}, {"back", 1, false}, {"back", 2, false}, {"remove", 1, true}}, []int{0, 2}},
		{"remove tail", []op{{"back", 0, false}, {"back", 1, false}, {"back", 2, false}, {"remove", 2, true}}, []int{0, 1}},
		{"remove only", []op{{"front", 0, false}, {"remove", 0, true}}, nil},
		{"double remove", []op{{"back", 0, false}, {"back", 1, false}, {"remove", 0, true}, {"remove", 0, false}}, []int{1}},
		{"remove unlinked", []op{{"back", 0, false}, {"remove", 1, false}}, []int{0}},
		{"remove from empty", []op{{"remove", 0, false}}, nil},
		{"relink after remove", []op{{"back", 0, false}, {"back", 1, false}, {"remove", 0, true}, {"back", 0, false}}, []int{1, 0}},
		{"pop", []op{{"back", 0, false}, {"back", 1, false}, {"pop", 0, false}}, []int{1}},
		{"pop empty", []op{{"pop", -1, false}}, nil},
		{"pop all", []op{{"back", 0, false}, {"back", 1, false}, {"pop", 0, false}, {"pop", 1, false}, {"pop", -1, false}}, nil},
		{"clear", []op{{"back", 0, false}, {"back", 1, false}, {"back", 2, false}, {"clear", 0, false}}, nil},
		{"clear then push", []op{{"back", 0, false}, {"back", 1, false}, {"clear", 0, false}, {"front", 1, false}}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es := make([]elem, 3)
			for i := range es {
				es[i].id = i
			}
			var l list
			for _, o := range tc.ops {
				switch o.kind {
				case "front":
					l.PushFront(&es[o.i])
				case "back":
					l.PushBack(&es[o.i])
				case "remove":
					if got := l.Remove(&es[o.i]); got != o.ok {
						t.Fatalf("Remove(%d) = %v, want %v", o.i, got, o.ok)
					}
				case "pop":
					var want *elem
					if o.i >= 0 {
						want = &es[o.i]
					}
					if got := l.PopFront(); got != want {
						t.Fatalf("PopFront() = %v, want element %d", got, o.i)
					}
				case "clear":
					l.Clear()
				}
			}
			var want []*elem
			for _, i := range tc.want {
				want = append(want, &es[i])
			}
			check(t, &l, want)
			for i := range es {
				if !slices.Contains(want, &es[i]) && es[i].links != (Links[elem]{}) {
					t.Fatalf("element %d is in no list but keeps its links", i)
				}
			}
		})
	}
}

func TestListAllocatesNothing(t *testing.T) {
	es := make([]elem, 3)
	var l list
	allocs := testing.AllocsPerRun(1000, func() {
		l.PushFront(&es[0])
		l.PushBack(&es[1])
		l.PushFront(&es[2])
		for x := l.Front(); x != nil; x = l.Next(x) {
		}
		l.Remove(&es[1])
		l.Remove(&es[1])
		l.PopFront()
		l.Clear()
	})
	if allocs != 0 {
		t.Fatalf("list operations allocate %v times per run, want 0", allocs)
	}
}

// FuzzList runs random operations on a list of a few elements and checks it against a slice.
// Each byte is an operation: its low 3 bits pick it, the rest the element.
func FuzzList(f *testing.F) {
	f.Add([]byte{0x00, 0x09, 0x12, 0x1b, 0x04, 0x0d, 0x05, 0x06})
	f.Add([]byte{0x01, 0x09, 0x11, 0x02, 0x0a, 0x12, 0x07, 0x00})
	f.Add([]byte{0x00, 0x08, 0x10, 0x0a, 0x0a, 0x03, 0x03, 0x03})
	f.Fuzz(func(t *testing.T, ops []byte) {
		es := make([]elem, 5)
		for i := range es {
			es[i].id = i
		}
		var l list
		var model []*elem
		for _, b := range ops {
			x := &es[int(b>>3)%len(es)]
			linked := slices.Contains(model, x)
			switch b & 7 {
			case 0, 1: // push front or back, if x is in no list
				if linked {
					continue
				}
				if b&7 == 0 {
					l.PushFront(x)
					model = slices.Insert(model, 0, x)
				} else {
					l.PushBack(x)
					model = append(model, x)
				}
			case 2, 5: // remove
				if got := l.Remove(x); got != linked {
					t.Fatalf("Remove(%d) = %v, want %v", x.id, got, linked)
				}
				if i := slices.Index(model, x); i >= 0 {
					model = slices.Delete(model, i, i+1)
				}
			case 3, 6: // pop
				var want *elem
				if len(model) > 0 {
					want, model = model[0], model[1:]
				}
				if got := l.PopFront(); got != want {
					t.Fatalf("PopFront() = %v, want %v", got, want)
				}
			case 4: // next of x
				var want *elem
				if i := slices.Index(model, x); i >= 0 && i+1 < len(model) {
					want = model[i+1]
				}
				if got := l.Next(x); got != want {
					t.Fatalf("Next(%d) = %v, want %v", x.id, got, want)
				}
			case 7:
				l.Clear()
				model = nil
			}
			check(t, &l, model)
			for i := range es {
				if !slices.Contains(model, &es[i]) && es[i].links != (Links[elem]{}) {
					t.Fatalf("element %d is in no list but keeps its links", i)
				}
			}
		}
	})
}
