package chaos

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// scriptRow13: the waiter ahead of us (not the holder) dies; we must still
// wait for the holder (etcd's TestMutexWaitsOnCurrentHolder).
func scriptRow13(ctx context.Context, e *Env, cfg Config, v *Verdict) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second+20*cfg.T)
	defer cancel()
	cs, err := e.startClients(ctx, "holder", "victim", "new")
	if err != nil {
		return err
	}
	p := e.lockPath(0)
	ls := make([]Locker, 3)
	for i, c := range cs {
		if ls[i], err = MutexLocker(c.FW, p); err != nil {
			return err
		}
	}
	h, hop, err := e.acquire(ctx, "holder/0", ls[0], p, "x")
	if err != nil {
		return err
	}
	victim := e.acquireAsync(ctx, "victim/0", ls[1], p, "x")
	if err := e.waitChildren(ctx, p, 2, 10*time.Second); err != nil {
		return err
	}
	next := e.acquireAsync(ctx, "new/0", ls[2], p, "x")
	if err := e.waitChildren(ctx, p, 3, 10*time.Second); err != nil {
		return err
	}
	if err := e.expireClient(ctx, cs[1]); err != nil {
		return err
	}
	early, got := notGranted(v, next, 2*cfg.T, "the waiter behind a dead waiter acquired while the holder held")
	if err := e.release("holder/0", hop, h); err != nil {
		v.add(CAPI, "holder release: %v", err)
	}
	if !got {
		early, got = await(v, next, 10*cfg.T, "new waiter after the holder released")
	}
	if got && early.err == nil {
		_ = e.release("new/0", early.op, early.h)
	}
	if r, ok := await(v, victim, 10*cfg.T, "the expired waiter, re-queued"); ok {
		_ = e.release("victim/0", r.op, r.h)
	}
	return nil
}

// scriptRow14: a waiter's own session expires while it is queued. Our
// documented choice: it re-queues with a new node under its deadline; it is
// never granted while the holder holds, and its grant is backed by a node of
// its current session.
func scriptRow14(ctx context.Context, e *Env, cfg Config, v *Verdict) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second+20*cfg.T)
	defer cancel()
	cs, err := e.startClients(ctx, "holder", "waiter")
	if err != nil {
		return err
	}
	p := e.lockPath(0)
	lh, err := MutexLocker(cs[0].FW, p)
	if err != nil {
		return err
	}
	lw, err := MutexLocker(cs[1].FW, p)
	if err != nil {
		return err
	}
	h, hop, err := e.acquire(ctx, "holder/0", lh, p, "x")
	if err != nil {
		return err
	}
	waiter := e.acquireAsync(ctx, "waiter/0", lw, p, "x")
	if err := e.waitChildren(ctx, p, 2, 10*time.Second); err != nil {
		return err
	}
	if err := e.expireClient(ctx, cs[1]); err != nil {
		return err
	}
	r, got := notGranted(v, waiter, 2*cfg.T, "a waiter whose session expired was granted while the holder held")
	_ = e.release("holder/0", hop, h)
	if !got {
		r, got = await(v, waiter, 10*cfg.T, "the re-queued waiter after the holder released")
	}
	if got && r.err == nil {
		checkLiveNode(ctx, e, cs[1], r.h, v)
		_ = e.release("waiter/0", r.op, r.h)
	}
	return nil
}

// checkLiveNode: a granted lease's node exists and belongs to the client's
// current session.
func checkLiveNode(ctx context.Context, e *Env, c *Client, h Holder, v *Verdict) {
	lh, ok := h.(leaseHolder)
	if !ok {
		return
	}
	st, err := e.admin.Exists(ctx, lh.l.Path())
	switch {
	case err != nil:
		v.add(CAPI, "cannot stat the granted node: %v", err)
	case st == nil:
		v.add(CRecipe, "granted lease %s has no node", lh.l.Path())
	case st.EphemeralOwner != c.FW.SessionID():
		v.add(CRecipe, "granted lease %s belongs to session 0x%x, client is 0x%x", lh.l.Path(), st.EphemeralOwner, c.FW.SessionID())
	}
}

// scriptRow18: read-write regressions. A downgrade keeps a queued writer out
// (CURATOR-621), also when the write lease is released from another
// goroutine during the downgrade. (An upgrade can no longer be asked for:
// the API has no way to pass a read lease to the write lock.)
func scriptRow18(ctx context.Context, e *Env, cfg Config, v *Verdict) error {
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second+40*cfg.T)
	defer cancel()
	cs, err := e.startClients(ctx, "p", "q")
	if err != nil {
		return err
	}
	p := e.lockPath(0)
	rw, err := recipes.NewReadWriteLock(cs[0].FW, p)
	if err != nil {
		return err
	}
	_, qw, err := ReadWriteLockers(cs[1].FW, p)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 18))
	for i := range downgradeRounds(cfg) {
		if err := downgradeRound(ctx, e, rw, qw, i%2 == 1, rng, v); err != nil {
			return err
		}
	}
	return nil
}

// downgradeRounds: more in full runs.
func downgradeRounds(cfg Config) int {
	if cfg.Strict {
		return 60
	}
	return 16
}

// downgradeRound: P holds the write lock, Q queues for it, P downgrades
// (the write lease released after the read is granted, or concurrently from
// another goroutine), and holds the read for a while: Q must not get in.
func downgradeRound(ctx context.Context, e *Env, rw *recipes.InterProcessReadWriteLock, qw Locker, concurrent bool, rng *rand.Rand, v *Verdict) error {
	p := rw.Path()
	hw, wop, err := e.acquire(ctx, "p/0", lockOf(p, rw.WriteLock().Lock), p, "w")
	if err != nil {
		return err
	}
	lw := hw.(leaseHolder).l.(*recipes.Lease)
	q := e.acquireAsync(ctx, "q/0", qw, p, "w")
	if err := e.waitChildren(ctx, p, 2, 10*time.Second); err != nil {
		return err
	}
	r := lockerOf{res: p, acquire: func(c context.Context) (recipes.Held, error) {
		return held(rw.ReadLock().Downgrade(c, lw))
	}}
	relDone := make(chan struct{})
	if concurrent {
		go func() {
			defer close(relDone)
			sleepCtx(ctx, time.Duration(rng.IntN(3000))*time.Microsecond)
			_ = e.release("p/0", wop, hw)
		}()
	}
	hr, rop, rerr := e.acquire(ctx, "p/0", r, p, "r")
	if !concurrent {
		_ = e.release("p/0", wop, hw)
		close(relDone)
	}
	<-relDone
	var qr granted
	var qgot bool
	if rerr == nil {
		qr, qgot = notGranted(v, q, time.Duration(300+rng.IntN(300))*time.Millisecond,
			"a queued writer got in while the downgraded read lease was held")
		_ = e.release("p/0", rop, hr)
	}
	if !qgot {
		qr, qgot = await(v, q, 10*e.T, "the queued writer after the downgrade ended")
	}
	if qgot && qr.err == nil {
		_ = e.release("q/0", qr.op, qr.h)
	}
	return e.waitChildren(ctx, p, 0, 4*e.T)
}

// scriptRow19: two clients take a multi-lock on two paths named in opposite
// orders, some with very short deadlines: no deadlock, no overlap, and a
// failed acquire leaves none of its nodes behind.
func scriptRow19(ctx context.Context, e *Env, cfg Config, v *Verdict) error {
	ctx, cancel := context.WithTimeout(ctx, 300*time.Second)
	defer cancel()
	cs, err := e.startClients(ctx, "a", "b")
	if err != nil {
		return err
	}
	pa, pb := e.lockPath(0), e.lockPath(1)
	la, err := MultiLocker(cs[0].FW, pa, pb)
	if err != nil {
		return err
	}
	lb, err := MultiLocker(cs[1].FW, pb, pa)
	if err != nil {
		return err
	}
	iters := 150
	if cfg.Strict {
		iters = 1000
	}
	errs := make(chan error, 2)
	for i, l := range []Locker{la, lb} {
		go func() {
			errs <- multiLoop(ctx, e, cs[i], l, []string{pa, pb}, iters, rand.New(rand.NewPCG(cfg.Seed, uint64(19+i))), v)
		}()
	}
	return errors.Join(<-errs, <-errs)
}

// multiLoop is one client of row 19.
func multiLoop(ctx context.Context, e *Env, c *Client, l Locker, paths []string, iters int, rng *rand.Rand, v *Verdict) error {
	proc := c.Name + "/0"
	for range iters {
		d := 30 * time.Second
		short := rng.IntN(4) == 0
		if short {
			d = time.Duration(1+rng.IntN(20)) * time.Millisecond
		}
		actx, cancel := context.WithTimeout(ctx, d)
		h, op, err := e.acquire(actx, proc, l, paths[0], "x")
		cancel()
		if err == nil {
			_ = e.release(proc, op, h)
			continue
		}
		if !short {
			v.add(CLive, "%s: multi-lock not acquired within %v (deadlock?): %v", proc, d, err)
			return nil
		}
		if left := e.ownNodes(ctx, c, paths, 4*e.T); left > 0 {
			v.add(CRecipe, "%s: a failed multi-lock acquire left %d of its nodes", proc, left)
		}
	}
	return nil
}

// ownNodes waits (up to d) until no node of c's session is under paths and
// returns how many are left.
func (e *Env) ownNodes(ctx context.Context, c *Client, paths []string, d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		n := 0
		for _, p := range paths {
			kids, _, _ := e.admin.Children(ctx, p)
			for _, k := range kids {
				if st, err := e.admin.Exists(ctx, p+"/"+k); err == nil && st != nil && st.EphemeralOwner == c.FW.SessionID() {
					n++
				}
			}
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		sleepCtx(ctx, 20*time.Millisecond)
	}
}
