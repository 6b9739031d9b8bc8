package main

import (
	"fmt"
	"strings"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// vs is a peer's median as a ratio to Curator's.
func (d *runData) vsCurator(p, id string, f func(harness.Result) float64) string {
	return fmtRatio(ratio(d.get(p, id, f), d.get(curatorName, id, f)))
}

func writeUncontended(m *md, d *runData) {
	m.f("\n## a. Uncontended acquire+release (1 session, 1 path)\n")
	m.table("peer", "p50 ms", "p99 ms", "cycles/s", "p50 × raw c+gC+d", "p50 × Curator",
		"cycles/s × Curator", "requests/cycle", "client CPU µs/cycle")
	floor := d.get(rawName, idRawCGCD, fP50)
	for _, p := range d.lockPeers() {
		a := d.get(p, idUnc, fP50)
		m.row(peerCell(p), d.cell(p, idUnc, a), fmtAgg(d.get(p, idUnc, fP99)), fmtAgg(d.get(p, idUnc, fRate)),
			fmtRatio(ratio(a, floor)), d.vsCurator(p, idUnc, fP50), d.vsCurator(p, idUnc, fRate),
			d.countCell(p, idUnc, cReq), fmtAgg(d.get(p, idUnc, fCPU)))
	}
}

func writeContended(m *md, d *runData) {
	m.f("\n## b. Contended handoff (N sessions on one path, empty critical section)\n")
	m.table("N", "peer", "acq/s", "× handoff floor", "× Curator", "fairness min / max per client (last rep)",
		"ME violations / acquisitions", "requests/acq", "notifications/acq", "client CPU µs/acq", "CPU × Curator",
		"CPU × zk.Lock", "heap allocs per acq: objects / bytes (Go peers)")
	floor := handoffFloor(d)
	for _, id := range []string{idCont8, idCont64} {
		n := "8"
		if id == idCont64 {
			n = "64"
		}
		for _, p := range d.lockPeers() {
			a := d.get(p, id, fRate)
			viol, _ := d.sumInt(p, id, func(r harness.Result) int64 { return r.Violations })
			acq, ok := d.sumInt(p, id, func(r harness.Result) int64 { return r.Cycles })
			me, fair := "–", "–"
			if ok {
				me = fmt.Sprintf("%d / %s", viol, thousands(acq))
				fair = d.fairness(p, id)
			}
			m.row(n, peerCell(p), d.cell(p, id, a), fmtRatio(ratio(a, floor)), d.vsCurator(p, id, fRate), fair, me,
				d.countCell(p, id, cReq), d.countCell(p, id, cNotif), fmtAgg(d.get(p, id, fCPU)), d.vsCurator(p, id, fCPU),
				fmtRatio(ratio(d.get(p, id, fCPU), d.get(goLockName, id, fCPU))), d.allocCell(p, id))
		}
	}
}

// fairness is min / max acquisitions per client in the last good repetition.
func (d *runData) fairness(p, id string) string {
	rs := d.results[key{p, id}]
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Error == "" && !rs[i].Unsupported {
			return fmt.Sprintf("%s / %s", thousands(rs[i].MinPerClient), thousands(rs[i].MaxPerClient))
		}
	}
	return "–"
}

func writeMany(m *md, d *runData) {
	m.f("\n## c. Many locks (64 sessions, each on its own path)\n")
	m.table("peer", "cycles/s", "× raw pairs/s (64 sessions)", "× Curator", "client CPU µs/cycle")
	floor := d.get(rawName, idRawSes64, fRate)
	for _, p := range d.lockPeers() {
		a := d.get(p, idMany, fRate)
		m.row(peerCell(p), d.cell(p, idMany, a), fmtRatio(ratio(a, floor)), d.vsCurator(p, idMany, fRate),
			fmtAgg(d.get(p, idMany, fCPU)))
	}
}

func writeHerd(m *md, d *runData) {
	m.f("\n## d. Herd (64 waiters queued, single releases)\n")
	m.table("peer", "release → next acquire p50 ms", "× raw idle handoff", "× Curator",
		"watch notifications per release", "requests per release", "client CPU µs/release")
	floor := d.get(rawName, idRawHand, fP50)
	for _, p := range d.lockPeers() {
		a := d.get(p, idHerd, fHand)
		m.row(peerCell(p), d.cell(p, idHerd, a), fmtRatio(ratio(a, floor)), d.vsCurator(p, idHerd, fHand),
			d.countCell(p, idHerd, cNotif), d.countCell(p, idHerd, cReq), fmtAgg(d.get(p, idHerd, fCPU)))
	}
}

func writeDepth(m *md, d *runData) {
	m.f("\n## e. Depth (one holder and N waiters on one path, spread over %d sessions)\n", depthSessions)
	m.table("waiters", "peer", "release → next acquire p50 ms", "p99 ms", "notifications per release",
		"bytes sent by the server per handoff", "client heap per waiter (bytes)", "library goroutines per waiter",
		"server watches (queue full)", "fill s", "drain s", "drain ms per waiter", "ME violations")
	for _, s := range d.plan.Lock {
		if s.Kind != harness.Depth {
			continue
		}
		for _, p := range d.lockPeers() {
			r, ok := d.first(p, s.ID)
			if !ok {
				m.row(thousands(int64(s.Waiters)), peerCell(p), d.status(p, s.ID), "", "", "", "", "", "", "", "", "", "")
				continue
			}
			x := func(k string) string { return extraCell(r, k) }
			drain, perWaiter := "–", "–"
			if r.DrainSeconds > 0 {
				drain, perWaiter = fmtNum(r.DrainSeconds), fmtNum(r.DrainSeconds*1000/float64(s.Waiters))
			} else if b := r.Extra["drain_bound_s"]; b > 0 {
				drain = fmt.Sprintf("> %s (%s of %s acquired)", fmtNum(b), thousands(int64(r.Extra["drained"])), thousands(int64(s.Waiters+1)))
			}
			mem, gor := "–", "–"
			if r.MemPerWaiter != 0 {
				mem = fmtSigned(r.MemPerWaiter)
			}
			if p == zkrecipesName || p == goLockName {
				gor = fmt.Sprintf("%.2f", r.GoroutinesPerWaiter)
			}
			m.row(thousands(int64(s.Waiters)), peerCell(p), fmtNum(r.HandoffP50Ms), fmtNum(r.P99Ms),
				x("notifications_per_release"), x("bytes_per_handoff"), mem, gor, x("server_watches"), x("fill_s"),
				drain, perWaiter, fmt.Sprint(r.Violations))
		}
	}
	m.f(`
A failed or unfinished depth shows the reason in the notes above. The heap is the client's: Go
live heap after a GC (runtime/metrics, the driver process, so the harness's own few objects per
waiter are in it), JVM used heap after GC, Python resident set; each divided by the waiters. Library
goroutines exclude the one goroutine per waiter the harness itself blocks in Acquire. Bytes are
what the server's sockets sent (kernel TCP counters) during the timed releases, divided by them:
the delete reply, the notification and the next holder's listing of the whole queue. Curator's watch
count includes one watch per session on the ensemble configuration node (its ensemble tracker).
`)
}

// first is a peer's first successful result under a scenario id (depth runs once).
func (d *runData) first(p, id string) (harness.Result, bool) {
	for _, r := range d.results[key{p, id}] {
		if r.Error == "" && !r.Unsupported {
			return r, true
		}
	}
	return harness.Result{}, false
}

// extraCell renders one Extra figure of a result, "–" when absent.
func extraCell(r harness.Result, k string) string {
	v, ok := r.Extra[k]
	if !ok {
		return "–"
	}
	if v == 0 {
		return "0"
	}
	return fmtNum(v)
}

// fmtSigned is fmtNum for figures that may be negative (a heap that shrank under GC).
func fmtSigned(v float64) string {
	if v < 0 {
		return "-" + fmtNum(-v)
	}
	return fmtNum(v)
}

func writeExtra(m *md, d *runData) {
	m.f("\n## f. Other recipes (8 sessions each; zkrecipes and Curator)\n")
	m.table("recipe", "peer", "acq/s", "× handoff floor", "× Curator", "requests/acq", "ME violations")
	floor := handoffFloor(d)
	names := map[string]string{idRW: "read/write lock, 90% readers (all acquisitions)",
		idSem: "semaphore, 4 leases", idMulti: "multi-lock over 3 paths (cycles/s)"}
	for _, s := range d.plan.Extra {
		for _, p := range []string{zkrecipesName, curatorName} {
			if !d.hasPeer(p) {
				continue
			}
			a := d.get(p, s.ID, fRate)
			viol, ok := d.sumInt(p, s.ID, func(r harness.Result) int64 { return r.Violations })
			v := "–"
			if ok {
				v = fmt.Sprint(viol)
			}
			m.row(names[s.ID], peerCell(p), d.cell(p, s.ID, a), fmtRatio(ratio(a, floor)), d.vsCurator(p, s.ID, fRate),
				d.countCell(p, s.ID, cReq), v)
		}
	}
}

func (d *runData) hasPeer(p string) bool {
	for _, q := range d.peers {
		if q == p {
			return true
		}
	}
	return false
}

func writeMethod(m *md, d *runData) {
	m.f(`
## Method

* Every peer runs every scenario back to back in one process per repetition (the JVM stays warm
  across scenarios, as in peer-bench.md); the whole set is repeated %d time(s), the peer order
  rotated by one each repetition; before the first, the server is warmed with plain lock
  requests (-server-warmup, see "server warm-up" above), so that the first peer does not
  measure a server whose JIT is still cold. Figures are the median of the per-repetition figures, with
  [min–max] over repetitions. Ratios divide two medians from this same run.
* a: %d warm-up cycles, then a timed window. b, c, e, f: a warm-up, then the per-client counters
  are read at the start and end of the timed window. d: the driver waits until all 65 contenders
  are queued, then times one release at a time, from just before release() to the next
  acquire() returning (the first release is not counted), %d releases per repetition
  (peer-bench.md timed 15: a p50 of 15 hand-offs of half a millisecond moved by ±50 %% between
  runs here).
* e: one holder and N waiters (1, 64, 1,000, 10,000) spread round-robin over up to 100 sessions
  queue on one path. Once the parent has N+1 children the driver waits for the server's watch
  count ("wchs") to settle (bounded) and records it; the peer then measures its memory. Then 15
  single releases (fewer for N < 15) are timed, the releaser not queueing again, while the driver
  counts the watch notifications the server fired (mntr) and the bytes the server's sockets sent
  (kernel TCP counters read with ss); then every holder releases as soon as it acquires, and the
  drain time runs from the first timed release to the last acquisition. Filling (60 s at 10,000)
  and the releases with the drain (35 s; 150 s at 10,000) are each bounded; a process peer that has not reported
  its queue full within the fill bound + 20 s, or its result within the drain bound + 45 s after
  that, is killed; the Go peers stop at a client heap guard (4 GiB). e runs once per peer, in its
  own pass after the repetitions and the counting pass (a deep queue can exhaust the server),
  so it has no range.
* e, queue limit: see that table.
* Mutual exclusion: a shared holder counter is checked inside every critical section; any value
  above the permitted count is a violation.
* Client CPU: the peer process's user+system CPU over the timed window, divided by acquisitions.
  The Go peers run inside the driver process, so the driver's own idle goroutines are included.
* Requests and notifications come from a separate, short counting pass through zktest's decoding
  proxy (one process per scenario; its timings are discarded because the proxy adds latency).
  Counts cover the whole scenario and are divided by every acquisition it made (a herd: by the
  releases that handed the lock over), so session set-up requests add a little. closeSession is
  left out. e is not counted through the proxy (its server-side counts are above). The
  uncontended multi-locks' table (m) and s1's split instead count from the end of the first
  acquisition to the end of the window, per acquisition in between.
* Write transactions and fsyncs per acquisition come from the server's own counters (mntr), read
  before and after each counting scenario once two reads 50 ms apart agree. zk_cnt_fsynctime:
  one sample per fsync of the transaction log, taken only with forceSync=yes (this run's server
  unless it came from ZK_SERVERS; see the server configuration above). zk_cnt_updatelatency: one
  per write transaction of a client connection (a multi is one, a failed write is one, and each
  session's createSession and closeSession are one each, which is why it runs a little above
  the proxy's write requests). zk_cnt_propagation_latency: every transaction applied, the
  server's own included (container reaping, session expiry); when some of the server's own fell
  in a scenario their number is shown beside the transactions per fsync. ZooKeeper groups
  commits: its sync thread appends every transaction that is queued and fsyncs them once, so one
  fsync can cover several transactions. When several sessions write at once (b, d, mc), fsyncs
  per acquisition are therefore below write transactions per acquisition; one session that
  waits for each reply gets about one fsync per transaction. How many writes coincide depends on
  timing, and the proxy adds latency, so the fsyncs under contention are indicative only. The
  counters are server-wide: the counting scenario is the only client while it runs, and with
  ZK_SERVERS they are those of the member the proxy fronts.
* Heap allocations per acquisition (Go peers): runtime/metrics allocation counters over the
  timed window, divided by acquisitions; the driver's own allocations are included.
* The ZooKeeper server shares the %d cores with the clients, so throughput figures are CPU-bound
  and client CPU is taken from the server.
`, d.reps, d.warmCycles(), d.herdReleases(), d.env.Cores)
}

// warmCycles is the uncontended warm-up of the plan (0 when a is not run).
// herdReleases is d's timed releases per repetition in this run's plan.
func (d *runData) herdReleases() int {
	for _, s := range d.plan.Lock {
		if s.ID == idHerd {
			return s.Releases
		}
	}
	return 0
}

func (d *runData) warmCycles() int {
	for _, s := range d.plan.Lock {
		if s.ID == idUnc {
			return s.WarmCycles
		}
	}
	return 0
}

func writeLimit(m *md, d *runData) {
	if len(d.plan.LimitSteps) == 0 {
		return
	}
	m.f("\n## e. Queue limit: the depth at which each peer breaks\n")
	if d.limitErr != "" {
		m.f("\nThe queue-limit pass stopped: %s\n", scrubPaths(d.limitErr))
	}
	m.table("peer", "deepest queue acquired behind", "its listing (KB)", "acquire ms there", "breaks at", "listing there (KB)", "how it broke")
	for _, p := range d.lockPeers() {
		steps, ok := d.limits[p]
		if !ok {
			m.row(peerCell(p), "not run", "", "", "", "", "")
			continue
		}
		deep, deepKB, deepMs, brk, brkKB, how := "none", "–", "–", "not within the steps", "–", "–"
		for _, s := range steps {
			if s.OK {
				deep, deepKB, deepMs = thousands(int64(s.N)), fmtNum(float64(s.ListingBytes)/1024), fmtNum(s.AcquireMs)
				continue
			}
			brk, brkKB, how = thousands(int64(s.N)), fmtNum(float64(s.ListingBytes)/1024), oneLine(scrubPaths(s.Err), 160)
		}
		if brk == "not within the steps" && len(steps) > 0 {
			brk = "> " + thousands(int64(steps[len(steps)-1].N))
		}
		m.row(peerCell(p), deep, deepKB, deepMs, brk, brkKB, how)
	}
	m.f(`
Each peer's session acquires once behind n nodes the driver put in the lock directory, named like
the peer's own lock nodes but sorting after them (steps %s), so its listing carries all n names and
it holds at once if the listing arrives. Each probe is bounded by %v. The listing size counts
4 + len(name) bytes per name; ZooKeeper's Java client refuses frames of 1 MB and more (jute.maxbuffer).
`, joinInts(d.plan.LimitSteps), limitBudget)
}

// oneLine shortens s to n runes on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return strings.ReplaceAll(s, "|", "/")
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = thousands(int64(x))
	}
	return strings.Join(parts, ", ")
}

var (
	fAllocs     = func(r harness.Result) float64 { return r.Extra["allocs_per_op"] }
	fAllocBytes = func(r harness.Result) float64 { return r.Extra["alloc_bytes_per_op"] }
)

// allocCell is "objects / bytes" allocated per operation (medians), "–" for process peers.
func (d *runData) allocCell(p, id string) string {
	o, b := d.get(p, id, fAllocs), d.get(p, id, fAllocBytes)
	if !o.ok || !b.ok {
		return "–"
	}
	return fmtNum(o.med) + " / " + thousands(int64(b.med))
}

// multiModes are the rows of the multi-lock tables: peer, scenario mode, label.
var multiModes = []struct{ peer, mode, label string }{
	{zkrecipesName, harness.MultiTx, "zkrecipes transactional (NewTxMultiMutex, paths unsorted)"},
	{zkrecipesName, harness.MultiSeq, "zkrecipes sequential (NewMultiMutex, sorts)"},
	{curatorName, harness.MultiSeq, "Curator InterProcessMultiLock (lists sorted)"},
	{zkrecipesName, harness.MultiNaive, "naive: one mutex after another, unsorted (can deadlock)"},
}

func writeMulti(m *md, d *runData) {
	if len(d.plan.Multi) == 0 {
		return
	}
	m.f("\n## m. Multi-locks\n")
	m.f("\nUncontended acquire+release cycle over k paths (1 session): p50 ms, median [min–max] over repetitions.\n")
	m.table("k", "zkrecipes transactional", "zkrecipes sequential", "Curator InterProcessMultiLock",
		"transactional × Curator", "sequential × Curator", "transactional × zkrecipes single lock (a)")
	single := d.get(zkrecipesName, idUnc, fP50)
	for _, k := range multiKs {
		tx, seq, cur := d.get(zkrecipesName, multiUncID(k, harness.MultiTx), fP50),
			d.get(zkrecipesName, multiUncID(k, harness.MultiSeq), fP50), d.get(curatorName, multiUncID(k, harness.MultiSeq), fP50)
		m.row(fmt.Sprint(k), d.cell(zkrecipesName, multiUncID(k, harness.MultiTx), tx),
			d.cell(zkrecipesName, multiUncID(k, harness.MultiSeq), seq), d.cell(curatorName, multiUncID(k, harness.MultiSeq), cur),
			fmtRatio(ratio(tx, cur)), fmtRatio(ratio(seq, cur)), fmtRatio(ratio(tx, single)))
	}
	m.f("\nContended: 16 sessions, each looping over a random set of 2 to 4 of 8 paths, 1 ms critical section, " +
		"5 s deadline per acquire; wait is the acquire call.\n")
	m.table("multi-lock", "acq/s", "× Curator", "p50 wait ms", "p99 wait ms",
		"deadline hits: in the windows / whole runs (all reps)", "ME violations / acquisitions", "fairness min / max per client (last rep)")
	cur := d.get(curatorName, idMultiContSeq, fRate)
	for _, mm := range multiModes {
		id := multiContID(mm.mode)
		if !d.hasPeer(mm.peer) || !d.ran(id) {
			continue
		}
		a := d.get(mm.peer, id, fRate)
		hits, ok := d.sumInt(mm.peer, id, func(r harness.Result) int64 { return int64(r.Extra["deadline_hits"]) })
		hitsAll, _ := d.sumInt(mm.peer, id, func(r harness.Result) int64 { return int64(r.Extra["deadline_hits_all"]) })
		viol, _ := d.sumInt(mm.peer, id, func(r harness.Result) int64 { return r.Violations })
		acq, _ := d.sumInt(mm.peer, id, func(r harness.Result) int64 { return r.Cycles })
		h, me := "–", "–"
		if ok {
			h, me = fmt.Sprintf("%d / %d", hits, hitsAll), fmt.Sprintf("%d / %s", viol, thousands(acq))
		}
		m.row(mm.label, d.cell(mm.peer, id, a), fmtRatio(ratio(a, cur)), fmtAgg(d.get(mm.peer, id, fP50)),
			fmtAgg(d.get(mm.peer, id, fP99)), h, me, d.fairness(mm.peer, id))
	}
	writeMultiCounts(m, d)
}

// multiContID is the contended multi-lock scenario's id for a mode.
func multiContID(mode string) string {
	switch mode {
	case harness.MultiTx:
		return idMultiContTx
	case harness.MultiSeq:
		return idMultiContSeq
	}
	return idMultiContNaive
}

// ran reports whether the plan has the scenario id.
func (d *runData) ran(id string) bool {
	for _, s := range d.plan.Multi {
		if s.ID == id {
			return true
		}
	}
	return false
}
