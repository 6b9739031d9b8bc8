package main

import (
	"fmt"
	"math"

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

// targets evaluates issue 5's targets on this run's medians.
func (d *runData) targets() []targetRow {
	rows := []targetRow{
		d.ratioTarget("a. uncontended p50 ≤ 1.0× Curator", idUnc, curatorName, fP50, 1.0, true),
		d.ratioTarget("b. N=8 acq/s ≥ 1.6× Curator", idCont8, curatorName, fRate, 1.6, false),
		d.ratioTarget("b. N=8 acq/s ≥ 1.2× zk.Lock", idCont8, goLockName, fRate, 1.2, false),
		d.ratioTarget("c. 64 locks cycles/s ≥ 1.6× Curator", idMany, curatorName, fRate, 1.6, false),
		d.ratioTarget("d. release → next acquire p50 ≤ 0.5× Curator", idHerd, curatorName, fHand, 0.5, true),
		d.notifTarget(),
		d.ratioTarget("client CPU per contended acquisition (N=8) ≤ 0.4× Curator", idCont8, curatorName, fCPU, 0.4, true),
		d.ratioTarget("client CPU per contended acquisition (N=64) ≤ 0.4× Curator", idCont64, curatorName, fCPU, 0.4, true),
	}
	return rows
}

// notifTarget: exactly one watch notification per release in the herd (counting pass).
func (d *runData) notifTarget() targetRow {
	row := targetRow{name: "d. exactly 1 notification per release (64 waiters)"}
	c, ok := d.counts[key{zkrecipesName, idHerd}]
	if !ok || c.Err != "" || c.Per <= 0 {
		row.measured, row.verdict, row.evidence = "–", "not measured", shortErr(c.Err)
		return row
	}
	v := cNotif(c)
	row.measured = fmt.Sprintf("%d notifications / %d releases", c.Notifications, c.Per)
	row.verdict = verdict(math.Abs(v-1) < 1e-9)
	row.evidence = fmt.Sprintf("requests per release: %s", c.byOpcode())
	return row
}

func writeTargets(m *md, d *runData) {
	m.f("\n## Targets (issue 5; ratios of medians from this run, forceSync=yes)\n")
	m.table("target", "measured", "verdict", "evidence")
	for _, t := range d.targets() {
		m.row(t.name, t.measured, t.verdict, t.evidence)
	}
	m.f("\nWhy a target is missed, with the round trips and profiles behind it: docs/performance.md.\n")
}
