package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Scenario is one row of the fault × workload table.
type Scenario struct {
	Row      int
	Name     string
	Workload WorkloadSpec
	Faults   []FaultKind   // the nemesis picks among these at random
	Gap      time.Duration // pause between faults
	// Script, when set, replaces the workload and the nemesis: a scripted
	// row that records its own history and violations.
	Script func(ctx context.Context, e *Env, cfg Config, v *Verdict) error
	// Wrap, when set, replaces each client's lockers (the broken locks of
	// the self-tests): it gets the client's framework and the op to wrap.
	Wrap func(fw *framework.Framework, spec OpSpec) Locker
	// SkipLive runs no quiet phase and no liveness check (self-tests).
	SkipLive bool
	// NoLost: the faults must cost no session (a leader election shorter than T), so a Lost
	// state is a violation in strict (full) runs; fast runs on a loaded CI machine only report it.
	NoLost bool
	// Handoff runs the handoff checker (told holders that had not stopped against the next
	// grant); rows whose workload has stopping holders (StopMax) run it anyway.
	Handoff bool
	// LiveOrphans looks for nodes left under the lock paths once every worker has stopped (its
	// holds released, its acquires cancelled and cleaned up) and before the clients close: a
	// node of a session still open there (a part of a set left by a lost reply, an expiry or
	// a cancel) would block its lock for as long as that session lives. The clean checker
	// reports each, beside what is left after the clients closed.
	LiveOrphans bool
	// Phase, when longer than the run's, is this row's fault phase (room for more faults).
	Phase time.Duration
}

// Config is how a scenario runs.
type Config struct {
	Seed       uint64
	T          time.Duration // session timeout
	Phase      time.Duration // how long the faults last
	Strict     bool          // judge timing bounds (full runs), not only report them
	HistoryDir string        // where a failing run's history is written ("" = temp dir)
}

// Result is what a run found.
type Result struct {
	Row        int
	Name       string
	Seed       uint64
	Ops        int // granted acquisitions
	Faults     int
	Refused    int      // fenced writes refused (stale token, or the guard failed)
	RefusedWhy []string // a few refused writes: resource, token and error
	Lost       int      // Lost connection states reported by the clients
	DeadGrants int      // grants whose node was gone right after, their Done already closed
	Verdict    *Verdict
	Orphans    int
	Stall      time.Duration
	NotifyP50  time.Duration
	NotifyMax  time.Duration
	NotifyLate int
	// Overlaps: grants made while a told holder had not yet stopped (allowed or not), and the
	// longest such overlap (rows that run the handoff checker).
	Overlaps    int
	OverlapMax  time.Duration
	CutsFired   int // reply cuts (cut-create, cut-delete) that hit a request
	Reused      int // grants on a node an earlier grant held: sticky local re-grants (row 30)
	History     *History
	HistoryFile string
}

// Run runs sc against cluster (a three-server ensemble) and checks it.
func Run(ctx context.Context, cluster *zktest.Cluster, sc Scenario, cfg Config) (*Result, error) {
	root := fmt.Sprintf("/chaos/r%d-%x-%d", sc.Row, cfg.Seed, time.Now().UnixNano()%1e6)
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	e, err := NewEnv(sctx, cluster, cfg.T, root)
	cancel()
	if err != nil {
		return nil, err
	}
	defer e.admin.Close()
	res := &Result{Row: sc.Row, Name: sc.Name, Seed: cfg.Seed, Verdict: newVerdict(), History: e.H}
	baseline := watchCount(ctx, cluster)
	var quiet int64
	var liveLeft []string
	if sc.Script != nil {
		err = sc.Script(ctx, e, cfg, res.Verdict)
	} else {
		quiet, err = runWorkload(ctx, e, sc, cfg)
	}
	if err == nil && sc.LiveOrphans {
		liveLeft = e.leftBehind(ctx, 3*e.T)
	}
	for _, c := range e.clients {
		c.close()
	}
	for _, f := range e.extras {
		f()
	}
	if err != nil {
		return res, err
	}
	judge(ctx, e, sc, cfg, res, quiet, baseline)
	for _, n := range liveLeft {
		res.Verdict.add(CClean, "node %s left after every worker stopped, its session still open", n)
	}
	res.Orphans += len(liveLeft)
	if res.Verdict.Total() > 0 {
		res.HistoryFile = saveHistory(e.H, cfg, sc)
	}
	return res, nil
}

// runWorkload starts the clients, runs the nemesis for the phase, heals,
// and keeps the workload going for the quiet (liveness) phase. It returns
// when the quiet phase began.
func runWorkload(ctx context.Context, e *Env, sc Scenario, cfg Config) (int64, error) {
	spec := sc.Workload
	paths := spec.lockPaths(e)
	if err := e.setupRegisters(ctx, paths); err != nil {
		return 0, err
	}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	if err := startWorkers(ctx, wctx, e, sc, cfg, &wg); err != nil {
		return 0, err
	}
	n := &nemesis{e: e, rng: rand.New(rand.NewPCG(cfg.Seed, 0xfa17))}
	end := time.Now().Add(max(cfg.Phase, sc.Phase))
	for len(sc.Faults) > 0 && ctx.Err() == nil {
		sleepCtx(ctx, sc.Gap/2+time.Duration(n.rng.Int64N(int64(sc.Gap)+1)))
		if time.Now().After(end) {
			break
		}
		k := sc.Faults[n.rng.IntN(len(sc.Faults))]
		if err := n.inject(ctx, k); err != nil {
			e.H.Add(Event{Kind: Note, Detail: fmt.Sprintf("fault %s: %v", k, err)})
		}
	}
	sleepCtx(ctx, time.Until(end))
	n.healAll()
	if err := n.healServers(context.WithoutCancel(ctx)); err != nil {
		return 0, fmt.Errorf("chaos: heal: %w", err)
	}
	quiet := e.H.Add(Event{Kind: Note, Detail: "quiet"})
	switch {
	case sc.SkipLive:
		return 0, ctx.Err()
	case !blocking(spec.Kind):
		sleepCtx(ctx, 2*e.T) // no liveness bound to wait out: a short calm end
	default:
		sleepCtx(ctx, liveBound(e, spec))
	}
	return quiet, ctx.Err()
}

// liveBound is how long after healing every contender must have acquired:
// 4 session timeouts (a session that expired in the fault phase is
// reconnected and its waiters re-queued) plus every contender's turn.
func liveBound(e *Env, spec WorkloadSpec) time.Duration {
	n := max(1, spec.Clients*max(1, spec.Workers))
	return 4*e.T + time.Duration(n)*(spec.CS+spec.Idle+100*time.Millisecond)
}

// startWorkers creates the clients and runs their workers on wctx.
func startWorkers(ctx, wctx context.Context, e *Env, sc Scenario, cfg Config, wg *sync.WaitGroup) error {
	spec := sc.Workload
	for i := range spec.Clients {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		c, err := e.AddClient(cctx, fmt.Sprintf("c%d", i))
		cancel()
		if err != nil {
			return err
		}
		pick, err := spec.picker(e, c)
		if err != nil {
			return err
		}
		if sc.Wrap != nil {
			inner := pick
			pick = func(rng *rand.Rand) OpSpec {
				s := inner(rng)
				s.Locker = sc.Wrap(c.FW, s)
				return s
			}
		}
		for j := range max(1, spec.Workers) {
			w := &worker{proc: fmt.Sprintf("c%d/%d", i, j), e: e, c: c, pick: pick, cs: spec.CS, idle: spec.Idle,
				stopMin: spec.StopMin, stopMax: spec.StopMax, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i*1000+j)))}
			c.workers = append(c.workers, w)
			wg.Add(1)
			go func() { defer wg.Done(); w.run(wctx) }()
		}
	}
	return startCurators(ctx, wctx, e, spec, cfg, wg)
}

// judge runs every checker over the finished run.
func judge(ctx context.Context, e *Env, sc Scenario, cfg Config, res *Result, quiet int64, baseline int) {
	events := e.H.Events()
	ix := newIndex(events)
	v := res.Verdict
	ext, _ := e.Fence.snapshot()
	checkFence(v, ext, readRegisters(ctx, e, v), events)
	checkOverlaps(v, ix, cfg.T)
	checkContracts(v, ix)
	checkGrantedNodes(v, ix)
	if quiet != 0 && blocking(sc.Workload.Kind) {
		checkLive(v, ix, quiet, liveBound(e, sc.Workload))
	}
	res.Orphans = checkClean(ctx, e, v, baseline)
	res.Reused = int(e.reused.Load())
	lat, late := notifyStats(v, ix, cfg.T, cfg.Strict)
	res.NotifyP50, res.NotifyMax, res.NotifyLate = percentile(lat, 50), percentile(lat, 100), late
	res.Stall = longestStall(ix, e.lockPath(0))
	if sc.Handoff || sc.Workload.StopMax > 0 {
		ov := checkHandoff(v, ix, cfg.T, cfg.T, sc.Workload.K)
		res.Overlaps, res.OverlapMax = len(ov), percentile(ov, 100)
	}
	for _, ev := range events {
		switch {
		case ev.Kind == AcqOK:
			res.Ops++
		case ev.Kind == Heal || ev.Kind == Resume:
			res.Faults++
		case ev.Kind == Write && !ev.OK:
			res.Refused++
			if len(res.RefusedWhy) < 5 {
				res.RefusedWhy = append(res.RefusedWhy, fmt.Sprintf("%s by %s (op %d, token %d): %s", ev.Res, ev.Proc, ev.Op, ev.Token, ev.Err))
			}
		case ev.Kind == NodeMissing && ev.OK:
			res.DeadGrants++
		case ev.Kind == Note && strings.HasSuffix(ev.Detail, cutFired):
			res.CutsFired++
		case isLost(ev):
			res.Lost++
		}
	}
	if sc.NoLost && cfg.Strict {
		checkNoLost(v, events, sc.Name)
	}
}

// blocking reports whether a workload's contenders keep waiting (so that
// liveness applies to each of them).
func blocking(w Workload) bool {
	return w == WMutex || w == WRW || w == WSem || w == WMulti || w == WTxMulti || w == WLeader || w == WSelector || w == WSticky
}

// readRegisters reads every znode register of the run.
func readRegisters(ctx context.Context, e *Env, v *Verdict) map[string][]zkEntry {
	out := make(map[string][]zkEntry)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	kids, _, err := e.admin.Children(rctx, e.Root+"/data")
	if errors.Is(err, framework.ErrNoNode) {
		return out
	}
	if err != nil {
		v.add(CFence, "cannot list registers: %v", err)
		return out
	}
	for _, k := range kids {
		data, _, err := e.admin.Get(rctx, e.Root+"/data/"+k)
		if err != nil {
			v.add(CFence, "cannot read register %s: %v", k, err)
			continue
		}
		ents, err := parseZK(data)
		if err != nil {
			v.add(CFence, "register %s: %v", k, err)
		}
		out[k] = ents
	}
	return out
}

// saveHistory writes a failing run's history and returns the file.
func saveHistory(h *History, cfg Config, sc Scenario) string {
	dir := cfg.HistoryDir
	if dir == "" {
		dir = filepathTemp()
	}
	p := filepath.Join(dir, fmt.Sprintf("chaos-row%d-seed%d.jsonl", sc.Row, cfg.Seed))
	if err := h.WriteFile(p); err != nil {
		return "(not written: " + err.Error() + ")"
	}
	return p
}
