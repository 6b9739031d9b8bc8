package watchmgr

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"
)

// The Manager's books under any sequence of what its callers and go-zookeeper do (issue 27:
// one map by path, entries shared by a path's kinds, hooks in two lists). Each byte pair of
// the input is one step: a Reserve, a Track (with go-zookeeper's channel or none), a Cancel,
// a watch event told to NodeEvent, an event sent into a watch's channel, an OnFire or OnEvent
// registration, its Stop, a disconnect or an expiry, a Live. As go-zookeeper does, an event
// reaches the channels only after NodeEvent was told of it, and an expiry invalidates every
// watch. Whatever the sequence:
//   - a registration in progress makes Resending true, and npend counts exactly those;
//   - a hook's callback runs at most once, never after a Stop that reported true;
//   - once every registration has ended and every watch's event has reached its channel, no
//     watch is live, nothing is resending, the books hold no path and no hook is left.
func FuzzManagerBooks(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 1, 0, 5, 0, 3, 1, 4, 0},
		{0, 1, 0, 1, 3, 2, 1, 0, 1, 1, 7, 0, 8, 0},
		{0, 2, 2, 0, 0, 2, 1, 0, 6, 0, 7, 1},
		{0, 3, 1, 0, 5, 1, 7, 1, 4, 0, 9, 0},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) { runBooks(t, ops) })
}

// TestManagerBooksRandom runs FuzzManagerBooks' property over seeded random sequences, so that
// every test run covers it, not only fuzzing.
func TestManagerBooksRandom(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 27))
		ops := make([]byte, 2*(10+r.IntN(120)))
		for i := range ops {
			ops[i] = byte(r.IntN(256))
		}
		runBooks(t, ops)
	}
}

type booksReg struct {
	r    *Registration
	kind Kind
	path string
}

type booksWatch struct {
	w   *Watch
	raw chan zk.Event // nil for a watch tracked with no channel
}

type booksHook struct {
	h       *Hook
	calls   *int
	stopped bool
}

func runBooks(t *testing.T, ops []byte) {
	t.Helper()
	m := New(nil)
	defer m.Close()
	paths := []string{"/a", "/b", "/a/c"}
	kinds := []Kind{Data, Exists, Children, Kind(9)}
	types := []zk.EventType{zk.EventNodeDeleted, zk.EventNodeDataChanged, zk.EventNodeChildrenChanged, zk.EventNodeCreated, zk.EventNotWatching}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel() // Reserve never waits here: a Reserve that would wait reports ctx.Err()
	var regs []booksReg
	var watches []booksWatch
	var hooks []booksHook
	var told []toldEvent // events NodeEvent was told of, not yet sent to the channels
	pick := func(n int, b byte) int { return int(b) % n }
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i]%10, ops[i+1]
		switch op {
		case 0: // Reserve
			k, p := kinds[pick(len(kinds), arg)], paths[pick(len(paths), arg>>2)]
			w, r, err := m.Reserve(cancelled, k, p)
			switch {
			case err != nil: // another registration of (k, p) is in progress
			case r != nil:
				regs = append(regs, booksReg{r, k, p})
			default:
				watches = append(watches, booksWatch{w: w}) // shares a live watch: no channel of its own
			}
		case 1, 2: // Track, or Cancel
			if len(regs) == 0 {
				continue
			}
			j := pick(len(regs), arg)
			g := regs[j]
			regs = append(regs[:j], regs[j+1:]...)
			if op == 2 {
				g.r.Cancel()
				continue
			}
			var raw chan zk.Event
			if arg&0x80 == 0 {
				raw = make(chan zk.Event, 1)
			}
			var ch <-chan zk.Event
			if raw != nil {
				ch = raw
			}
			watches = append(watches, booksWatch{g.r.Track(ch), raw})
		case 3: // go-zookeeper tells the callback of a watch event ...
			ev := zk.Event{Type: types[pick(len(types), arg)], Path: paths[pick(len(paths), arg>>3)]}
			m.NodeEvent(ev.Type, ev.Path)
			told = append(told, toldEvent{ev, recipients(watches, ev)})
		case 4: // ... and then sends it into the watches' channels
			if len(told) > 0 {
				told[0].deliver()
				told = told[1:]
			}
		case 5, 6: // OnFire, OnEvent
			if len(watches) == 0 {
				continue
			}
			w := watches[pick(len(watches), arg)].w
			calls := new(int)
			fn := func(zk.Event) { *calls++ }
			var h *Hook
			var now bool
			if op == 5 {
				h, now = w.OnFire(fn)
			} else {
				h, now = w.OnEvent(fn)
			}
			if !now {
				hooks = append(hooks, booksHook{h: h, calls: calls})
			}
		case 7: // Stop
			if len(hooks) == 0 {
				continue
			}
			h := &hooks[pick(len(hooks), arg)]
			if h.h.Stop() {
				if *h.calls != 0 {
					t.Fatalf("ops %v: Stop reported true after the callback ran", ops)
				}
				h.stopped = true
			}
		case 8: // a disconnect, or an expiry
			state := zk.StateDisconnected
			if arg&1 == 1 {
				state = zk.StateExpired
			}
			m.Callback()(zk.Event{Type: zk.EventSession, State: state})
			if state == zk.StateExpired { // go-zookeeper invalidates every watch, path by path
				for _, p := range paths {
					ev := zk.Event{Type: zk.EventNotWatching, Path: p}
					m.NodeEvent(ev.Type, ev.Path)
					toldEvent{ev, recipients(watches, ev)}.deliver()
				}
			}
		case 9:
			m.Live()
		}
		checkBooks(t, m, ops, len(regs), hooks)
	}
	for _, g := range regs { // every registration ends, every watch's event comes
		g.r.Cancel()
	}
	for _, x := range told {
		x.deliver()
	}
	for _, p := range paths {
		ev := zk.Event{Type: zk.EventNodeDeleted, Path: p}
		m.NodeEvent(ev.Type, ev.Path)
		toldEvent{ev, recipients(watches, ev)}.deliver()
	}
	checkBooks(t, m, ops, 0, hooks)
	if n := m.Live(); n != 0 {
		t.Fatalf("ops %v: Live = %d after every watch fired", ops, n)
	}
	m.mu.Lock()
	left, hooksLeft := len(m.paths), m.hooks.Len()
	m.mu.Unlock()
	if left != 0 || hooksLeft != 0 || m.Resending() {
		t.Fatalf("ops %v: at the end %d paths in the books, %d hooks, resending %v; want none", ops, left, hooksLeft, m.Resending())
	}
}

// toldEvent is an event NodeEvent was told of, and the channels go-zookeeper sends it to:
// those of the watches set on its path, of a kind it fires, when it came (conn.go:
// notifyWatches). A watch tracked later never gets it: its watching reply is read after it.
type toldEvent struct {
	ev zk.Event
	to []chan zk.Event
}

// recipients lists the channels an event goes to now.
func recipients(watches []booksWatch, ev zk.Event) []chan zk.Event {
	var to []chan zk.Event
	kinds := kindsOf(ev.Type)
	for _, x := range watches {
		k := x.w.Kind().slot()
		if x.raw != nil && x.w.Path() == ev.Path && k >= 0 && kinds&(1<<k) != 0 && len(x.raw) == 0 && !x.w.s.isFired.Load() && !slices.Contains(to, x.raw) {
			to = append(to, x.raw)
		}
	}
	return to
}

// deliver sends the event into its channels, each of which holds one event at most.
func (x toldEvent) deliver() {
	for _, ch := range x.to {
		select {
		case ch <- x.ev:
		default: // an earlier event is there: go-zookeeper sends a watch one event only
		}
	}
}

// checkBooks checks what must hold after every step.
func checkBooks(t *testing.T, m *Manager, ops []byte, inProgress int, hooks []booksHook) {
	t.Helper()
	m.mu.Lock()
	npend := m.npend
	valid := 0
	for _, e := range m.paths {
		for k := range numKinds {
			if e.pend[k] != nil {
				valid++
			}
		}
		if e.idle() {
			m.mu.Unlock()
			t.Fatalf("ops %v: an idle path stays in the books", ops)
		}
	}
	m.mu.Unlock()
	if npend != valid {
		t.Fatalf("ops %v: npend %d, but %d registrations in the books", ops, npend, valid)
	}
	if inProgress > 0 && npend > 0 && !m.Resending() {
		t.Fatalf("ops %v: registrations in progress but not resending", ops)
	}
	for _, h := range hooks {
		if *h.calls > 1 || (h.stopped && *h.calls != 0) {
			t.Fatalf("ops %v: a hook ran %d times (stopped %v)", ops, *h.calls, h.stopped)
		}
	}
}
