package chaos

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// Pinning: the nemesis pins a holder before a fault that must notify, and the pinned holder then
// holds until its Done closes or pinBound·T passes, as a slow holder would. The notify checker
// flags a pinned holder that never saw Done. Both halves hold by construction, not by timing:
// the nemesis pins a worker that holds now, or else waits (bounded) for the next to begin a hold,
// and aims the fault at that worker's client; and a pinned hold runs to its bound even when the
// run ends first (the run waits for it), so a broken lock's pinned holder is always judged.

// pinBound is how long a pinned holder waits for its Done, in session timeouts.
const pinBound = 3

// pinDesk hands the nemesis a holder to pin: one that holds now, or else the first worker to
// begin a hold while the nemesis waits for one. Safe for concurrent use.
type pinDesk struct {
	mu   sync.Mutex
	want chan *worker // set while the nemesis waits; buffered (1)
}

// held is called by a worker that has just begun to hold: if the nemesis waits for a holder,
// the worker is pinned and handed over.
func (d *pinDesk) held(w *worker) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.want != nil && w.pin() {
		d.want <- w
		d.want = nil
	}
}

// pinHolder pins a worker of cs (in rng's order) that holds now; if none does, it waits up to
// wait (or until ctx ends) for a worker to begin a hold, and pins that one. It returns the
// pinned worker, or nil when no worker held in time.
func (d *pinDesk) pinHolder(ctx context.Context, cs []*Client, rng *rand.Rand, wait time.Duration) *worker {
	d.mu.Lock()
	for _, i := range rng.Perm(len(cs)) {
		for _, w := range cs[i].workers {
			if w.pin() {
				d.mu.Unlock()
				return w
			}
		}
	}
	ch := make(chan *worker, 1)
	d.want = ch
	d.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case w := <-ch:
		return w
	case <-t.C:
	case <-ctx.Done():
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.want = nil
	select {
	case w := <-ch: // pinned between the timer and the lock
		return w
	default:
		return nil
	}
}

// pin marks the worker's current hold as pinned, if it holds now.
func (w *worker) pin() bool { return w.state.CompareAndSwap(holding, pinned) }

// unpin undoes pin when the fault it was meant for did not happen: the hold goes on as usual.
func (w *worker) unpin() { w.state.CompareAndSwap(pinned, holding) }

// waitPinned holds until Done closes or pinBound·T passes. It does not end with the run: a
// pinned hold cut short by the run's end could not tell a Done that never closes from a late
// one, so the run waits for it (at most pinBound·T after the pin).
func (w *worker) waitPinned(got Holder) {
	defer w.state.Store(idle)
	t := time.NewTimer(pinBound * w.e.T)
	defer t.Stop()
	select {
	case <-got.Done():
	case <-t.C:
	}
}
