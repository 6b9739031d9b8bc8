package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// OpSpec is one acquisition a worker is about to make.
type OpSpec struct {
	Locker   Locker
	Res      string // the lock path (the first, for a multi-lock)
	Mode     string // x, r, w, s
	K        int    // for s: the semaphore's maximum
	Try      bool
	Deadline time.Duration // the acquire's own deadline
	Write    bool          // write the fenced registers while holding
	Cancel   bool          // a short deadline whose expiry must return ctx's error
	// Writes, when positive, spreads that many fenced writes over the hold,
	// each only while Done is open (a leader acting on its term); otherwise
	// one write is made, Done or not.
	Writes int
	// FenceByNode fences per node rather than per acquisition: every hold on one node (a sticky
	// lock's local re-grants, which keep the node and its token) is one fencing epoch (sticky.go).
	FenceByNode bool
}

// Picker chooses a worker's next acquisition.
type Picker func(rng *rand.Rand) OpSpec

// worker states, for pinning: the nemesis can pin a holder, which then
// holds until its Done closes (or pinBound), as a slow holder would.
const (
	idle int32 = iota
	holding
	pinned
	stopping // told (Done closed), still working out its stop delay
)

// worker is one sequential contender (a goroutine) of a client.
type worker struct {
	proc string
	e    *Env
	c    *Client
	rng  *rand.Rand
	pick Picker
	cs   time.Duration // the longest critical section
	idle time.Duration // pause between acquisitions
	// stopMin..stopMax: how long the worker keeps working after its Done closed (0: it stops at once)
	stopMin, stopMax time.Duration
	state            atomic.Int32
}

// run loops acquisitions until ctx ends.
func (w *worker) run(ctx context.Context) {
	for ctx.Err() == nil {
		w.once(ctx, w.pick(w.rng))
		sleepCtx(ctx, w.idle)
	}
}

// once makes one acquisition and, if it is granted, one hold.
func (w *worker) once(ctx context.Context, spec OpSpec) {
	h := w.e.H
	op := h.NextOp()
	h.Add(Event{Proc: w.proc, Kind: AcqCall, Res: spec.Res, Mode: spec.Mode, Op: op})
	actx, cancel := context.WithTimeout(ctx, spec.Deadline)
	var got Holder
	var err error
	if spec.Try {
		got, err = spec.Locker.TryAcquire(actx)
	} else {
		got, err = spec.Locker.Acquire(actx)
	}
	expired := actx.Err() != nil
	cancel()
	if err != nil {
		w.failed(ctx, spec, op, err, expired)
		return
	}
	w.hold(ctx, spec, op, got)
}

// failed records a failed acquire and backs off briefly on real errors.
func (w *worker) failed(ctx context.Context, spec OpSpec, op int64, err error, expired bool) {
	h := w.e.H
	h.Add(Event{Proc: w.proc, Kind: AcqFail, Res: spec.Res, Mode: spec.Mode, Op: op, Err: err.Error()})
	ctxErr := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
	if spec.Cancel && expired && !ctxErr && ctx.Err() == nil {
		h.Add(Event{Proc: w.proc, Kind: Contract, Res: spec.Res, Op: op, Err: err.Error(),
			Detail: "acquire whose deadline passed returned an error that is not the context's"})
	}
	if ctxErr || errors.Is(err, recipes.ErrLocked) {
		return
	}
	sleepCtx(ctx, 50*time.Millisecond)
}

// hold believes, writes, waits, and releases.
func (w *worker) hold(ctx context.Context, spec OpSpec, op int64, got Holder) {
	h := w.e.H
	parts := got.Parts()
	h.Add(Event{Proc: w.proc, Kind: AcqOK, Res: spec.Res, Mode: spec.Mode, Op: op, Detail: fmt.Sprint(len(parts)), Sess: sessionOf(got)})
	for _, p := range parts {
		w.e.ledger.grant(p.Res, belief{proc: w.proc, op: op, mode: spec.Mode, k: spec.K, done: got.Done()})
		if spec.FenceByNode && p.Node != "" && w.e.nodeHold(p.Node, op) != op {
			w.e.reused.Add(1) // a grant on a node an earlier grant held: a sticky local re-grant
		}
	}
	released := make(chan struct{})
	go func() {
		select {
		case <-got.Done():
			h.Add(Event{Proc: w.proc, Kind: DoneSeen, Res: spec.Res, Op: op, Err: fmt.Sprint(got.Err())})
		case <-released:
		}
	}()
	w.e.checkNode(ctx, w.proc, op, got)
	w.state.Store(holding)
	w.e.pins.held(w)
	if spec.Writes > 0 {
		w.act(ctx, spec, op, got, parts)
	} else {
		if spec.Write {
			w.write(ctx, op, parts, 1, spec.FenceByNode)
		}
		w.work(ctx, got, time.Duration(w.rng.Int64N(int64(w.cs)+1)))
	}
	if !w.state.CompareAndSwap(holding, idle) {
		w.waitPinned(got)
		if spec.Write {
			w.write(ctx, op, parts, max(2, spec.Writes+1), spec.FenceByNode) // a late write, as a holder that does not watch Done makes
		}
	}
	if w.stopMax > 0 {
		w.stop(ctx, spec, op, got)
	}
	h.Add(Event{Proc: w.proc, Kind: RelCall, Res: spec.Res, Op: op})
	for _, p := range parts {
		w.e.ledger.drop(p.Res, op)
	}
	close(released)
	rctx, cancel := context.WithTimeout(context.Background(), 2*w.e.T)
	err := got.Release(rctx)
	cancel()
	ev := Event{Proc: w.proc, Kind: RelDone, Res: spec.Res, Op: op}
	if err != nil {
		ev.Err = err.Error()
	}
	h.Add(ev)
}

// work holds for d. A stopping worker (stopMax > 0) stops early when got's Done closes, to
// start its stop delay (stop); any other sleeps d through.
func (w *worker) work(ctx context.Context, got Holder, d time.Duration) {
	if w.stopMax == 0 {
		sleepCtx(ctx, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-got.Done():
	case <-ctx.Done():
	}
}

// stop is a stopping worker's end of a hold: once told (Done closed), it keeps working for a
// random delay in stopMin..stopMax, as a real holder finishes the step it is in, then records
// Stopped; a hold that ended untold stops at once. The release follows. The stop delay ends
// early only when the run ends (ctx), and Stopped is then recorded when it really stopped.
func (w *worker) stop(ctx context.Context, spec OpSpec, op int64, got Holder) {
	if closed(got.Done()) {
		w.state.Store(stopping)
		span := max(0, w.stopMax-w.stopMin)
		sleepCtx(ctx, w.stopMin+time.Duration(w.rng.Int64N(int64(span)+1)))
		w.state.Store(idle)
	}
	w.e.H.Add(Event{Proc: w.proc, Kind: Stopped, Res: spec.Res, Op: op})
}

// act makes spec.Writes fenced writes over a hold of 0..cs, each only while
// got's Done is open, as a leader that checks its term before acting.
func (w *worker) act(ctx context.Context, spec OpSpec, op int64, got Holder, parts []Part) {
	for i := 1; i <= spec.Writes && ctx.Err() == nil; i++ {
		if closed(got.Done()) {
			return
		}
		if spec.Write {
			w.write(ctx, op, parts, i, spec.FenceByNode)
		}
		w.work(ctx, got, time.Duration(w.rng.Int64N(int64(w.cs)/int64(spec.Writes)+1)))
	}
}

// checkNode records a NodeMissing event when a granted lease's node (any node of a
// transactional set) is not on the servers right after the grant (OK: its Done had closed) (read through the admin
// session, after a sync). A grant made from a stale view, for instance
// after the waiter's session expired at the handoff, shows up this way.
func (e *Env) checkNode(ctx context.Context, proc string, op int64, got Holder) {
	var ps []string
	switch h := got.(type) {
	case leaseHolder:
		ps = []string{h.l.Path()}
	case termHolder:
		ps = []string{h.t.Path()}
	case txHolder:
		ps = h.nodes() // one transaction created them all: each must still be there
	default:
		return
	}
	cctx, cancel := context.WithTimeout(ctx, 2*e.T)
	defer cancel()
	for _, p := range ps {
		if !e.checkOneNode(cctx, proc, op, got, p) {
			return
		}
	}
}

// checkOneNode is checkNode for one of the grant's nodes, p; false if it could not look.
func (e *Env) checkOneNode(ctx context.Context, proc string, op int64, got Holder, p string) bool {
	if err := e.admin.Sync(ctx, p); err != nil {
		return false
	}
	st, err := e.admin.Exists(ctx, p)
	switch {
	case err != nil:
		return false
	case st == nil:
		// A lease told of its loss deletes its node in the background:
		// only a missing node under an open Done is suspect.
		e.H.Add(Event{Proc: proc, Kind: NodeMissing, Op: op, Detail: p, OK: closed(got.Done())})
	case st.EphemeralOwner != sessionOf(got):
		// The belief checker trusts the session a grant names: it must own the node.
		e.H.Add(Event{Proc: proc, Kind: Contract, Op: op, Err: fmt.Sprintf("node %s belongs to 0x%x", p, st.EphemeralOwner),
			Detail: fmt.Sprintf("a grant names session 0x%x", sessionOf(got))})
	}
	return true
}

// write offers one fenced write per part: to the Fence with the part's
// token, and to the part's znode register through Multi(Guard, SetOp). With byNode, the
// write's hold is its node's (nodeHold), not the acquisition.
func (w *worker) write(ctx context.Context, op int64, parts []Part, n int, byNode bool) {
	h := w.e.H
	for _, p := range parts {
		tctx, cancel := context.WithTimeout(ctx, 2*w.e.T)
		tok, err := p.Token(tctx)
		if err == nil {
			fop, elem := op, fmt.Sprintf("%s#%d#%d", w.proc, op, n)
			if byNode && p.Node != "" {
				fop = w.e.nodeHold(p.Node, op)
				elem = fmt.Sprintf("%s#n%d#%s.%d.%d", w.c.Name, fop, w.proc, op, n) // elemOp: the node's hold
			}
			w.e.Fence.Write(w.proc, fop, p.Res, tok)
			err = zkWrite(tctx, w.c.FW, p.Guard(), w.e.dataPath(p.Res), tok, elem)
			ev := Event{Proc: w.proc, Kind: Write, Res: "zk:" + p.Res, Op: op, Token: tok, OK: err == nil, Detail: elem}
			if err != nil {
				ev.Err = err.Error()
			}
			if err != nil && ctx.Err() != nil {
				ev.Kind = WriteCut // the run ended under it: its outcome is unknown, not refused
			}
			h.Add(ev)
		}
		cancel()
	}
}

// dataPath is the znode register of lock path res.
func (e *Env) dataPath(res string) string {
	return e.Root + "/data/" + strings.ReplaceAll(strings.TrimPrefix(res, e.Root+"/"), "/", "_")
}

// sleepCtx sleeps d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
