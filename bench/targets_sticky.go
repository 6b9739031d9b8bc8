package main

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// fAcq is the acquire alone of an uncontended scenario (a, s1, s5-w).
var fAcq = func(r harness.Result) float64 { return r.Extra["acquire_p50_ms"] }

// stickyTargets evaluates issue 28's targets on this run's medians: the sticky configuration
// against Curator, zk.Lock and non-sticky zkrecipes, all from this run.
func (d *runData) stickyTargets() []targetRow {
	st, z := zkrecipesStickyName, zkrecipesName
	return []targetRow{
		d.crossTarget("s1. acq/s ≥ 100× Curator", st, idS1, curatorName, idS1, fRate, 100, false),
		d.crossTarget("s1. acq/s ≥ 100× zk.Lock", st, idS1, goLockName, idS1, fRate, 100, false),
		d.afterFirstTarget(),
		d.crossTarget("s2. affinity acq/s ≥ 5× Curator", st, idS2, curatorName, idS2, fRate, 5, false),
		d.crossTarget("s2. affinity acq/s ≥ 3× non-sticky zkrecipes", st, idS2, z, idS2, fRate, 3, false),
		d.crossTarget("s3. handover acquire p50 ≤ 2× non-sticky uncontended acquire+release p50 (a)", st, idS3, z, idUnc, fP50, 2, true),
		d.crossTarget("s3. (stricter reading) handover acquire p50 ≤ 2× the non-sticky acquire alone (s3 non-sticky)", st, idS3, z, idS3, fP50, 2, true),
		d.crossTarget("s4. ping-pong acq/s ≥ 0.9× non-sticky zkrecipes", st, idS4, z, idS4, fRate, 0.9, false),
		d.crossTarget("s5. read-mostly reads/s ≥ 20× Curator's read lock", st, idS5, curatorName, idS5, fRate, 20, false),
		d.crossTarget("s5. writer acquire p50 ≤ 3× a non-sticky uncontended write acquire+release p50 (s5-w)", st, idS5, z, idS5W, fP50, 3, true),
		d.aggTarget("s5. (stricter reading) writer acquire p50 ≤ 3× the non-sticky uncontended write acquire alone (s5-w)",
			d.get(st, idS5, fP50), d.get(z, idS5W, fAcq), 3, true),
		d.stickyMETarget(),
	}
}

// aggTarget compares two medians: met when a/b is <= limit (atMost) or >= limit.
func (d *runData) aggTarget(name string, a, b agg, limit float64, atMost bool) targetRow {
	r, ok := ratio(a, b)
	if !ok {
		return targetRow{name: name, measured: "–", verdict: "not measured"}
	}
	met := r >= limit
	if atMost {
		met = r <= limit
	}
	return targetRow{name: name, measured: fmt.Sprintf("%.2f×", r), verdict: verdict(met),
		evidence: fmt.Sprintf("%s vs %s", fmtAgg(a), fmtAgg(b))}
}

// afterFirstTarget: the sticky s1 makes no ZooKeeper request between its first acquisition and
// the end of its window (counting pass).
func (d *runData) afterFirstTarget() targetRow {
	row := targetRow{name: "s1. ZooKeeper requests per acquisition after the first = 0"}
	c, ok := d.counts[key{zkrecipesStickyName, idS1}]
	if !ok {
		row.measured, row.verdict, row.evidence = "–", "not measured", "not counted"
		return row
	}
	a, ok := c.afterFirst()
	if !ok {
		row.measured, row.verdict, row.evidence = "–", "not measured", shortErr(c.Err)
		return row
	}
	n := a.lockRequests()
	row.measured = fmt.Sprintf("%d requests / %s acquisitions", n, thousands(a.Per))
	row.verdict = verdict(n == 0)
	row.evidence = fmt.Sprintf("the first acquisition, with the session's set-up: %s", c.firstByOpcode())
	return row
}

// stickyMETarget: no mutual-exclusion violation in any s scenario of any peer, all repetitions.
func (d *runData) stickyMETarget() targetRow {
	row := targetRow{name: "s. 0 mutual-exclusion violations (every s scenario, every peer, every repetition)"}
	var viol, acq int64
	measured := false
	for _, p := range d.stickyPeers() {
		for _, s := range d.plan.Sticky {
			v, ok := d.sumInt(p, s.ID, func(r harness.Result) int64 { return r.Violations })
			n, _ := d.sumInt(p, s.ID, func(r harness.Result) int64 { return r.TotalCycles })
			viol, acq, measured = viol+v, acq+n, measured || ok
		}
	}
	if !measured {
		row.measured, row.verdict = "–", "not measured"
		return row
	}
	row.measured, row.verdict = fmt.Sprintf("%d / %s acquisitions", viol, thousands(acq)), verdict(viol == 0)
	row.evidence = "a holder counter checked inside every critical section (per lock in s2; readers against the writer in s5)"
	return row
}

func writeStickyTargets(m *md, d *runData) {
	if len(d.plan.Sticky) == 0 || !d.hasPeer(zkrecipesStickyName) {
		return
	}
	m.f("\n## Sticky-lease targets (issue 28; ratios of medians from this run, forceSync=yes)\n")
	m.table("target", "measured", "verdict", "evidence")
	for _, t := range d.stickyTargets() {
		m.row(t.name, t.measured, t.verdict, t.evidence)
	}
	m.f("\nThe scenarios, and every peer's figures: section s below. Why a target is missed: docs/performance.md, \"Sticky leases\".\n")
}
