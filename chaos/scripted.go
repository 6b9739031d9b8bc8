package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// granted is the outcome of a scripted acquire.
type granted struct {
	h   Holder
	op  int64
	err error
}

// acquireAsync runs one recorded acquire on its own goroutine.
func (e *Env) acquireAsync(ctx context.Context, proc string, l Locker, res, mode string) <-chan granted {
	out := make(chan granted, 1)
	op := e.H.NextOp()
	e.H.Add(Event{Proc: proc, Kind: AcqCall, Res: res, Mode: mode, Op: op})
	go func() {
		h, err := l.Acquire(ctx)
		if err != nil {
			e.H.Add(Event{Proc: proc, Kind: AcqFail, Res: res, Mode: mode, Op: op, Err: err.Error()})
			out <- granted{op: op, err: err}
			return
		}
		e.H.Add(Event{Proc: proc, Kind: AcqOK, Res: res, Mode: mode, Op: op})
		for _, p := range h.Parts() {
			e.ledger.grant(p.Res, belief{proc: proc, op: op, mode: mode, done: h.Done()})
		}
		out <- granted{h: h, op: op}
	}()
	return out
}

// acquire is acquireAsync, waited for. It waits for the outcome even after
// ctx ends (Acquire returns promptly then): a grant that races with the
// deadline must reach the caller, who releases it, not be dropped.
func (e *Env) acquire(ctx context.Context, proc string, l Locker, res, mode string) (Holder, int64, error) {
	g := <-e.acquireAsync(ctx, proc, l, res, mode)
	return g.h, g.op, g.err
}

// release ends a scripted hold.
func (e *Env) release(proc string, op int64, h Holder) error {
	e.H.Add(Event{Proc: proc, Kind: RelCall, Op: op})
	for _, p := range h.Parts() {
		e.ledger.drop(p.Res, op)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*e.T)
	defer cancel()
	err := h.Release(ctx)
	ev := Event{Proc: proc, Kind: RelDone, Op: op}
	if err != nil {
		ev.Err = err.Error()
	}
	e.H.Add(ev)
	return err
}

// expireClient closes c's session on the server and records the fault.
func (e *Env) expireClient(ctx context.Context, c *Client) error {
	id, pw, ok := c.session()
	if !ok {
		return fmt.Errorf("chaos: %s has no session to expire", c.Name)
	}
	e.H.Add(Event{Proc: c.Name, Kind: Fault, Detail: string(Expire), Sess: id})
	err := zktest.ExpireSession(ctx, e.Cluster.Member(0).Addr(), id, pw)
	e.H.Add(Event{Kind: Heal, Detail: string(Expire)})
	return err
}

// waitChildren polls until lock path p has n children (bounded by d).
func (e *Env) waitChildren(ctx context.Context, p string, n int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		kids, _, _ := e.admin.Children(ctx, p)
		if len(kids) == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("chaos: %s has %d children, want %d, after %v", p, len(kids), n, d)
		}
		sleepCtx(ctx, 20*time.Millisecond)
	}
}

// clients starts n named clients.
func (e *Env) startClients(ctx context.Context, names ...string) ([]*Client, error) {
	out := make([]*Client, len(names))
	for i, n := range names {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		c, err := e.AddClient(cctx, n)
		cancel()
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// notGranted fails v if g delivered a grant within d (it must not: a
// correct lock never grants here, so waiting longer only finds more).
func notGranted(v *Verdict, g <-chan granted, d time.Duration, what string) (granted, bool) {
	select {
	case r := <-g:
		if r.err == nil {
			v.add(CBelief, "%s", what)
		}
		return r, true
	case <-time.After(d):
		return granted{}, false
	}
}

// await waits for g (bounded), recording a liveness violation on timeout.
func await(v *Verdict, g <-chan granted, d time.Duration, what string) (granted, bool) {
	select {
	case r := <-g:
		if r.err != nil {
			v.add(CLive, "%s: %v", what, r.err)
			return r, false
		}
		return r, true
	case <-time.After(d):
		v.add(CLive, "%s: not within %v", what, d)
		return granted{}, false
	}
}
