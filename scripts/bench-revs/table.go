package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

// comparison is a finished invocation: what ran and every run's record.
type comparison struct {
	command    string
	started    time.Time
	elapsed    time.Duration
	base, head revision
	rounds     int
	reps       int
	alternate  bool
	ids        []string
	runs       []runRecord
}

// write renders the comparison as markdown: the set-up, the figures, the request counts and
// the runs with their load.
func (c comparison) write(b *strings.Builder) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("## %s: base %s, head %s\n\n", strings.Join(c.ids, ", "), short(c.base.commit), short(c.head.commit))
	w("`%s`, %s UTC, %.1f min, %d core(s). base: %s. head: %s.\n", c.command,
		c.started.UTC().Format("2006-01-02 15:04"), c.elapsed.Minutes(), runtime.NumCPU(), c.base.label(), c.head.label())
	order := "base then head"
	if c.alternate {
		order = "base then head, head first in even rounds"
	}
	w("%d round(s), each runs %s (the driver with -reps %d, zkrecipes and zk.Lock, the same plan); ", c.rounds, order, c.reps)
	w("load average (1 min) at the runs' starts %s.\n\n", loadRange(c.runs))
	w("Figures: median [min–max] over rounds of each run's median. × zk.Lock: zkrecipes over zk.Lock in the same run. ")
	w("head/base: per round, head's run over base's run; \"of × zk.Lock\" divides the two runs' ratios to zk.Lock, ")
	w("which cancels load that both peers of a run saw. ↑: higher is better, ↓: lower is better.\n\n")
	w("| row | metric | zkrecipes base | zkrecipes head | zk.Lock (all runs) | base × zk.Lock | head × zk.Lock | head/base | head/base of × zk.Lock |\n")
	w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows(c.runs, c.ids) {
		arrow := "↓"
		if r.m.higherBetter {
			arrow = "↑"
		}
		w("| %s | %s %s | %s | %s | %s | %s | %s | %s | %s |\n", r.id, r.m.name, arrow,
			fmtStat(r.zk[sideBase], fmtNum), fmtStat(r.zk[sideHead], fmtNum), fmtStat(r.yard, fmtNum),
			fmtStat(r.vsYard[sideBase], fmtTimes), fmtStat(r.vsYard[sideHead], fmtTimes),
			fmtStat(r.headBase, fmtRel), fmtStat(r.headBaseNormalize, fmtRel))
	}
	w("\nQuartiles over rounds of head/base of × zk.Lock (the spread this load leaves): %s.\n", quartiles(rows(c.runs, c.ids)))
	c.writeCounts(w)
	c.writeRuns(w)
}

// writeCounts renders the counting pass, when a round ran it.
func (c comparison) writeCounts(w func(string, ...any)) {
	cr := countRows(c.runs, c.ids)
	if len(cr) == 0 {
		return
	}
	w("\nRequests per acquisition (the driver's counting pass through a decoding proxy; a herd's are per release; ")
	w("session set-up and tear-down left out):\n\n")
	w("| row | side | zkrecipes requests | zkrecipes notifications | zkrecipes by request | zk.Lock requests | zk.Lock notifications |\n")
	w("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range cr {
		id := r.id
		if r.per != "acquisition" {
			id += " (per " + r.per + ")"
		}
		w("| %s | %s | %.2f | %.2f | %s | %s | %s |\n", id, sideNames[r.side], r.zkReq, r.zkNotif, byOpcode(r.zkByOp),
			orDash(r.yardReq), orDash(r.yardNotif))
	}
}

// writeRuns lists every run in order with the load it ran under.
func (c comparison) writeRuns(w func(string, ...any)) {
	w("\n| round | side | commit | load 1/5/15 min at start | load 1 min at end | run s | counted |\n")
	w("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range c.runs {
		counted := ""
		if r.count {
			counted = "yes"
		}
		w("| %d | %s | %s | %.2f / %.2f / %.2f | %.2f | %.0f | %s |\n", r.round, sideNames[r.side], short(r.Commit),
			r.load[0], r.load[1], r.load[2], r.loadEnd, r.seconds, counted)
	}
}

// quartiles lists each row's quartiles of head/base of × zk.Lock, "b8 acq/s 0.324–2.586; ...".
func quartiles(rs []row) string {
	var parts []string
	for _, r := range rs {
		q := "–"
		if s := r.headBaseNormalize; s.ok {
			q = fmtRel(s.q1) + "–" + fmtRel(s.q3)
		}
		parts = append(parts, r.id+" "+r.m.name+" "+q)
	}
	return strings.Join(parts, "; ")
}

// loadRange is "1.52 [0.80–3.10]": the median and range of the 1-minute load at the runs' starts.
func loadRange(runs []runRecord) string {
	var xs []float64
	for _, r := range runs {
		xs = append(xs, r.load[0])
	}
	s := summarize(xs)
	if !s.ok {
		return "unknown"
	}
	return fmtStat(s, func(v float64) string { return fmt.Sprintf("%.2f", v) })
}

// fmtStat prints "median [min–max]" (the range only when it spans more than one value), "–"
// when nothing was measured.
func fmtStat(s stat, f func(float64) string) string {
	if !s.ok {
		return "–"
	}
	if s.n == 1 || s.lo == s.hi {
		return f(s.med)
	}
	return fmt.Sprintf("%s [%s–%s]", f(s.med), f(s.lo), f(s.hi))
}

// fmtNum prints a figure with about three significant digits.
func fmtNum(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtTimes(v float64) string { return fmt.Sprintf("%.2f×", v) }

func fmtRel(v float64) string { return fmt.Sprintf("%.3f", v) }

func orDash(v float64) string {
	if v <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}
