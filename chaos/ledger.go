package chaos

import "sync"

// ledger knows who believes they hold what. At every grant it looks at the
// other believers of the resource and records, in the history, each one
// whose Done is still open although the two cannot hold together. Looking
// at the Done channels at the moment of the grant (rather than comparing
// timestamps afterwards) is what makes "the old holder had not been told"
// exact within one process. Safe for concurrent use.
type ledger struct {
	h  *History
	mu sync.Mutex
	by map[string]map[int64]belief // resource -> op -> belief
}

// belief is one holder's claim on a resource.
type belief struct {
	proc string
	op   int64
	mode string // x, r, w, s
	k    int    // for s: the semaphore's maximum
	done <-chan struct{}
}

func newLedger(h *History) *ledger {
	return &ledger{h: h, by: make(map[string]map[int64]belief)}
}

// grant records b's claim on res and reports conflicts with open believers.
func (l *ledger) grant(res string, b belief) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.by[res]
	if m == nil {
		m = make(map[int64]belief)
		l.by[res] = m
	}
	leases := 1
	for _, o := range m {
		if closed(o.done) || o.proc == b.proc {
			continue // a worker is sequential: the same proc twice is a downgrade
		}
		if b.mode == "s" && o.mode == "s" {
			leases++
			continue
		}
		if incompatible(b.mode, o.mode) {
			l.h.Add(Event{Proc: b.proc, Kind: Conflict, Res: res, Mode: b.mode, Op: b.op, Peer: o.proc, PeerOp: o.op, Detail: o.mode})
		}
	}
	if b.mode == "s" && leases > b.k {
		l.h.Add(Event{Proc: b.proc, Kind: OverK, Res: res, Mode: "s", Op: b.op, Token: int64(leases)})
	}
	m[b.op] = b
}

// drop ends b's claim (it calls release, or its Done closed).
func (l *ledger) drop(res string, op int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by[res], op)
}

// incompatible reports whether holders in modes a and b exclude each other.
func incompatible(a, b string) bool {
	switch {
	case a == "r" && b == "r":
		return false
	case a == "s" || b == "s":
		return false // counted instead
	}
	return true
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
