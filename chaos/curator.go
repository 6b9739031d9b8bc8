package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/interop"
)

// A Curator contender of row 30: one JVM (interop.CuratorProcess: one CuratorFramework, one
// session of 30 s, connected straight to the servers, not through a client's proxies, so the
// nemesis reaches it only through the server kills) that takes the run's paths at random with
// Curator's InterProcessMutex on the mutex paths and InterProcessReadWriteLock (70 % reads) on
// the read-write paths. Curator tells its holder nothing of a loss, so its belief holds from
// the reply of its acquire to its release call, which lies inside its real hold. Its fenced
// writes are made for it through the admin session, with its node's czxid as the token (as
// ours) and a check of its node as the guard.

// curatorWorker is one Curator JVM's sequential contender.
type curatorWorker struct {
	proc  string
	e     *Env
	cur   *interop.CuratorProcess
	paths []string // the first half mutexes, the second read-write locks
	cs    time.Duration
	rng   *rand.Rand
}

// startCurators starts spec.Curator JVMs and their workers on wctx; each JVM is closed after
// the clients (Env.extras).
func startCurators(ctx, wctx context.Context, e *Env, spec WorkloadSpec, cfg Config, wg *sync.WaitGroup) error {
	for i := range spec.Curator {
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // the first run compiles the Java side
		cur, err := interop.StartCurator(sctx, strings.Join(e.Cluster.Servers(), ","))
		cancel()
		if err != nil {
			return fmt.Errorf("chaos: curator contender: %w", err)
		}
		e.extras = append(e.extras, func() { _ = cur.Close() })
		w := &curatorWorker{proc: fmt.Sprintf("cur%d/0", i), e: e, cur: cur, paths: spec.lockPaths(e), cs: spec.CS,
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(900_000+i)))}
		wg.Add(1)
		go func() { defer wg.Done(); w.run(wctx) }()
	}
	return nil
}

// run loops acquisitions until ctx ends. Each command gets its own bounded context, not ctx: a
// command cancelled by its context kills the JVM, whose session would then leave its node
// behind until it expired.
func (w *curatorWorker) run(ctx context.Context) {
	for ctx.Err() == nil {
		i := w.rng.IntN(len(w.paths))
		mode := "x"
		if i >= len(w.paths)/2 {
			mode = "w"
			if w.rng.IntN(100) < 70 {
				mode = "r"
			}
		}
		if err := w.once(ctx, w.paths[i], mode); err != nil {
			w.e.H.Add(Event{Proc: w.proc, Kind: Note, Detail: "curator: " + err.Error()})
			if errors.Is(err, interop.ErrClosed) || errors.Is(err, interop.ErrExited) {
				return
			}
			sleepCtx(ctx, 50*time.Millisecond)
		}
	}
}

// once makes one acquisition of res in mode and, if granted, one hold.
func (w *curatorWorker) once(ctx context.Context, res, mode string) error {
	h := w.e.H
	op := h.NextOp()
	h.Add(Event{Proc: w.proc, Kind: AcqCall, Res: res, Mode: mode, Op: op})
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.e.T+time.Minute)
	defer cancel()
	acquire, release := w.cur.Acquire, w.cur.Release
	switch mode {
	case "r":
		acquire, release = w.cur.ReadAcquire, w.cur.ReadRelease
	case "w":
		acquire, release = w.cur.WriteAcquire, w.cur.WriteRelease
	}
	node, err := acquire(cctx, res, w.e.T) // Curator's own timeout: a command ends within T
	if err != nil {
		h.Add(Event{Proc: w.proc, Kind: AcqFail, Res: res, Mode: mode, Op: op, Err: err.Error()})
		if errors.Is(err, interop.ErrTimeout) {
			return nil
		}
		return err
	}
	h.Add(Event{Proc: w.proc, Kind: AcqOK, Res: res, Mode: mode, Op: op, Detail: "1", Sess: w.cur.SessionID()})
	w.e.ledger.grant(res, belief{proc: w.proc, op: op, mode: mode}) // no Done: Curator never tells
	if mode != "r" {
		w.write(cctx, op, res, node)
	}
	sleepCtx(ctx, time.Duration(w.rng.Int64N(int64(w.cs)+1)))
	h.Add(Event{Proc: w.proc, Kind: RelCall, Res: res, Op: op})
	w.e.ledger.drop(res, op)
	ev := Event{Proc: w.proc, Kind: RelDone, Res: res, Op: op}
	if err := release(cctx, res); err != nil {
		ev.Err = err.Error()
	}
	h.Add(ev)
	return nil
}

// write is the holder's fenced write, made through the admin session: the token is the
// node's czxid, the guard a check of the node.
func (w *curatorWorker) write(ctx context.Context, op int64, res, node string) {
	tctx, cancel := context.WithTimeout(ctx, 2*w.e.T)
	defer cancel()
	st, err := w.e.admin.Exists(tctx, node)
	if err != nil || st == nil {
		w.e.H.Add(Event{Proc: w.proc, Kind: Note, Op: op, Detail: fmt.Sprintf("curator node %s: %v (stat %v)", node, err, st)})
		return
	}
	w.e.Fence.Write(w.proc, op, res, st.Czxid)
	elem := fmt.Sprintf("%s#%d#1", w.proc, op)
	err = zkWrite(tctx, w.e.admin, framework.CheckOp(node, -1), w.e.dataPath(res), st.Czxid, elem)
	ev := Event{Proc: w.proc, Kind: Write, Res: "zk:" + res, Op: op, Token: st.Czxid, OK: err == nil, Detail: elem}
	if err != nil {
		ev.Err = err.Error()
	}
	w.e.H.Add(ev)
}
