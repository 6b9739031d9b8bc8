package main

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// targetRow is one line of the targets table.
type targetRow struct {
	name, measured, verdict, evidence string
}

// ratioTarget compares zkrecipes' median of f to another peer's: met when the ratio is <= limit
// (atMost) or >= limit.
func (d *runData) ratioTarget(name, id, other string, f func(harness.Result) float64, limit float64, atMost bool) targetRow {
	r, ok := ratio(d.get(zkrecipesName, id, f), d.get(other, id, f))
	row := targetRow{name: name}
	if !ok {
		row.measured, row.verdict = "–", "not measured"
		row.evidence = fmt.Sprintf("zkrecipes: %s; %s: %s", d.status(zkrecipesName, id), other, d.status(other, id))
		return row
	}
	row.measured = fmt.Sprintf("%.2f×", r)
	met := r >= limit
	if atMost {
		met = r <= limit
	}
	row.verdict = verdict(met)
	row.evidence = d.evidence(id, other)
	return row
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**missed**"
}

// evidence summarises requests per op and client CPU of zkrecipes against another peer.
func (d *runData) evidence(id, other string) string {
	cid := id
	if id == idCont64 {
		cid = idCont8
	}
	s := fmt.Sprintf("client CPU µs/op zkrecipes %s vs %s %s", fmtAgg(d.get(zkrecipesName, id, fCPU)), other,
		fmtAgg(d.get(other, id, fCPU)))
	zc, ok1 := d.counts[key{zkrecipesName, cid}]
	oc, ok2 := d.counts[key{other, cid}]
	if ok1 && ok2 && zc.Per > 0 && oc.Per > 0 {
		s += fmt.Sprintf("; requests/op zkrecipes %.2f (%s) vs %s %.2f (%s)", cReq(zc), zc.byOpcode(), other, cReq(oc), oc.byOpcode())
	}
	return s
}

// targets evaluates issue 12's targets on this run's medians.
func (d *runData) targets() []targetRow {
	return []targetRow{
		d.ratioTarget("a. uncontended p50 ≤ 1.0× Curator", idUnc, curatorName, fP50, 1.0, true),
		d.ratioTarget("b. N=8 acq/s ≥ 1.0× zk.Lock", idCont8, goLockName, fRate, 1.0, false),
		d.ratioTarget("b. N=8 client CPU per acquisition ≤ 1.0× zk.Lock", idCont8, goLockName, fCPU, 1.0, true),
		d.ratioTarget("b. N=64 acq/s ≥ 1.0× zk.Lock", idCont64, goLockName, fRate, 1.0, false),
		d.ratioTarget("b. N=64 client CPU per acquisition ≤ 1.0× zk.Lock", idCont64, goLockName, fCPU, 1.0, true),
		d.ratioTarget("c. 64 locks cycles/s ≥ 1.6× Curator", idMany, curatorName, fRate, 1.6, false),
		d.ratioTarget("d. release → next acquire p50 ≤ 1.0× zk.Lock", idHerd, goLockName, fHand, 1.0, true),
		d.floorTarget("d. release → next acquire p50 ≤ 1.0× the raw idle handoff", d.get(zkrecipesName, idHerd, fHand),
			d.get(rawName, idRawHand, fP50), 1.0),
		d.notifTarget(),
		d.crossTarget("m. uncontended transactional multi-lock over 4 paths p50 ≤ 1.5× zkrecipes single lock (a)",
			zkrecipesName, multiUncID(4, harness.MultiTx), zkrecipesName, idUnc, fP50, 1.5, true),
		d.crossTarget("m. contended multi-lock acq/s: transactional (unsorted) ≥ 2× Curator InterProcessMultiLock (sorted)",
			zkrecipesName, idMultiContTx, curatorName, idMultiContSeq, fRate, 2, false),
		d.deadlineTarget(),
	}
}

// crossTarget compares one peer's median under one scenario to another's under another: met
// when the ratio is <= limit (atMost) or >= limit.
func (d *runData) crossTarget(name, p, id, other, otherID string, f func(harness.Result) float64, limit float64, atMost bool) targetRow {
	a, b := d.get(p, id, f), d.get(other, otherID, f)
	r, ok := ratio(a, b)
	row := targetRow{name: name}
	if !ok {
		row.measured, row.verdict = "–", "not measured"
		row.evidence = fmt.Sprintf("%s %s: %s; %s %s: %s", p, id, d.status(p, id), other, otherID, d.status(other, otherID))
		return row
	}
	met := r >= limit
	if atMost {
		met = r <= limit
	}
	row.measured, row.verdict = fmt.Sprintf("%.2f×", r), verdict(met)
	row.evidence = fmt.Sprintf("%s %s %s vs %s %s %s", p, id, fmtAgg(a), other, otherID, fmtAgg(b))
	return row
}

// deadlineTarget: no acquire of the transactional multi-lock, paths unsorted, hit its deadline.
func (d *runData) deadlineTarget() targetRow {
	row := targetRow{name: "m. contended transactional multi-lock (unsorted): 0 deadline hits"}
	hits, ok := d.sumInt(zkrecipesName, idMultiContTx, func(r harness.Result) int64 { return int64(r.Extra["deadline_hits_all"]) })
	if !ok {
		row.measured, row.verdict, row.evidence = "–", "not measured", d.status(zkrecipesName, idMultiContTx)
		return row
	}
	acq, _ := d.sumInt(zkrecipesName, idMultiContTx, func(r harness.Result) int64 { return r.TotalCycles })
	row.measured, row.verdict = fmt.Sprintf("%d hits / %s acquisitions", hits, thousands(acq)), verdict(hits == 0)
	if naive, ok := d.sumInt(zkrecipesName, idMultiContNaive, func(r harness.Result) int64 { return int64(r.Extra["deadline_hits_all"]) }); ok {
		row.evidence = fmt.Sprintf("the naive unsorted one-at-a-time multi-lock in the same run: %d deadline hits", naive)
	}
	return row
}

// floorTarget compares zkrecipes' median to a raw floor: met when the ratio is <= limit.
func (d *runData) floorTarget(name string, a, floor agg, limit float64) targetRow {
	r, ok := ratio(a, floor)
	if !ok {
		return targetRow{name: name, measured: "–", verdict: "not measured"}
	}
	return targetRow{name: name, measured: fmt.Sprintf("%.2f×", r), verdict: verdict(r <= limit),
		evidence: fmt.Sprintf("zkrecipes %s ms vs floor %s ms", fmtAgg(a), fmtAgg(floor))}
}

// depthTargets are issue 12's goals at the deepest queue of the plan (10,000 in the default one).
func (d *runData) depthTargets() []targetRow {
	var deep, ref spec
	for _, s := range d.plan.Lock {
		if s.Kind == harness.Depth {
			ref, deep = deep, s
		}
	}
	if deep.ID == "" {
		return nil
	}
	w := thousands(int64(deep.Waiters))
	r, ok := d.first(zkrecipesName, deep.ID)
	if !ok {
		why := d.status(zkrecipesName, deep.ID)
		return []targetRow{{name: "e. at " + w + " waiters: every depth goal", measured: "–", verdict: "**missed**", evidence: why}}
	}
	n, hasN := r.Extra["notifications_per_release"]
	rows := []targetRow{
		// The server counts the releaser's own-node watch too (issue 24.2), as in d: one waiter woken
		// is 1 to 2 notifications per release; a herd gives about the depth.
		{name: "e. at " + w + " waiters: each release wakes exactly one waiter: ≤ 2 notifications per release, the releaser's own-node watch included",
			measured: extraCell(r, "notifications_per_release") + " notifications per release",
			verdict:  verdict(hasN && n > 1-1e-9 && n < 2+1e-9), evidence: "watch notifications fired by the server (mntr) during the timed releases"},
		{name: "e. at " + w + " waiters: client memory per waiter < 4 KB", measured: fmtSigned(r.MemPerWaiter) + " bytes",
			verdict: verdict(r.MemPerWaiter < 4096), evidence: "Go live heap after GC (runtime/metrics), queue full, divided by the waiters"},
		{name: "e. at " + w + " waiters: at most one goroutine per waiter (the caller's own included)",
			measured: fmt.Sprintf("%.2f", 1+r.GoroutinesPerWaiter), verdict: verdict(r.GoroutinesPerWaiter < 0.005),
			evidence: fmt.Sprintf("library goroutines per waiter %.2f (runtime/metrics)", r.GoroutinesPerWaiter)},
	}
	return append(rows, d.drainTarget(deep, ref, r))
}

// drainTarget: the drain time per waiter grows no faster from the reference depth to the deepest
// than the listing each handoff carries (bytes the server sends per handoff).
func (d *runData) drainTarget(deep, ref spec, r harness.Result) targetRow {
	row := targetRow{name: fmt.Sprintf("e. drain grows no worse than depth × listing cost (%s → %s waiters)",
		thousands(int64(ref.Waiters)), thousands(int64(deep.Waiters)))}
	q, ok := d.first(zkrecipesName, ref.ID)
	if !ok || ref.ID == "" || r.DrainSeconds <= 0 || q.DrainSeconds <= 0 || q.Extra["bytes_per_handoff"] <= 0 {
		row.measured, row.verdict, row.evidence = "–", "**missed**", "the drain did not complete at both depths"
		return row
	}
	perDeep, perRef := r.DrainSeconds/float64(deep.Waiters), q.DrainSeconds/float64(ref.Waiters)
	growth, listing := perDeep/perRef, r.Extra["bytes_per_handoff"]/q.Extra["bytes_per_handoff"]
	row.measured = fmt.Sprintf("drain per waiter × %.1f, listing × %.1f", growth, listing)
	row.verdict = verdict(growth <= listing*1.1)
	row.evidence = fmt.Sprintf("drain %s s and %s s; bytes per handoff %s and %s", fmtNum(q.DrainSeconds), fmtNum(r.DrainSeconds),
		fmtNum(q.Extra["bytes_per_handoff"]), fmtNum(r.Extra["bytes_per_handoff"]))
	return row
}

// notifTarget: no herd in d (counting pass). Each release wakes one waiter; since issue 24.2 a
// held lease may also keep a data watch on its own node, which its own release fires (to the
// releaser, not to a waiter). The proxy cannot tell the two apart (both are NodeDeleted on the
// releaser's node), so the bound is 2 per release; a herd would give up to 64.
func (d *runData) notifTarget() targetRow {
	row := targetRow{name: "d. at most 1 waiter notified per release (64 waiters): ≤ 2 notifications per release, the releaser's own-node watch included"}
	c, ok := d.counts[key{zkrecipesName, idHerd}]
	if !ok || c.Err != "" || c.Per <= 0 {
		row.measured, row.verdict, row.evidence = "–", "not measured", shortErr(c.Err)
		return row
	}
	v := cNotif(c)
	row.measured = fmt.Sprintf("%d notifications / %d releases", c.Notifications, c.Per)
	row.verdict = verdict(v >= 1-1e-9 && v <= 2+1e-9)
	row.evidence = fmt.Sprintf("requests per release: %s", c.byOpcode())
	return row
}

func writeTargets(m *md, d *runData) {
	m.f("\n## Targets (issue 12; ratios of medians from this run, forceSync=yes)\n")
	m.table("target", "measured", "verdict", "evidence")
	for _, t := range append(d.targets(), d.depthTargets()...) {
		m.row(t.name, t.measured, t.verdict, t.evidence)
	}
	m.f("\nWhy a target is missed, with the round trips and profiles behind it: docs/performance.md.\n")
}
