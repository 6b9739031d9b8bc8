package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// regressionLimit: a ratio more than 10 % worse than in the last recorded run is a regression.
const regressionLimit = 0.10

// historyRecord is one run of the driver as kept under bench/results/: when, on which commit and
// machine, every ratio of zkrecipes to the floors and peers, and every raw figure behind them.
type historyRecord struct {
	Version int                         `json:"version"`
	Time    string                      `json:"time"` // UTC, RFC 3339
	Commit  string                      `json:"commit"`
	Dirty   bool                        `json:"dirty"` // uncommitted changes in the work tree
	Command string                      `json:"command"`
	Plan    string                      `json:"plan"`
	Reps    int                         `json:"repetitions"`
	Minutes float64                     `json:"minutes"`
	Machine envInfo                     `json:"machine"`
	Ratios  []ratioEntry                `json:"ratios"`
	Results map[string][]harness.Result `json:"results"` // "peer|scenario" → one Result per repetition
	Counts  map[string]countResult      `json:"counts,omitempty"`
	Limits  map[string][]limitStep      `json:"queue_limits,omitempty"`
	Notes   []string                    `json:"notes,omitempty"`
}

// ratioEntry is one ratio of medians from the run, and which direction is better.
type ratioEntry struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Better string  `json:"better"` // "higher" or "lower"
}

// metric is a figure the ratios are taken of.
type metric struct {
	name   string
	f      func(harness.Result) float64
	better string
}

var (
	mRate = metric{"acq/s", fRate, "higher"}
	mP50  = metric{"p50", fP50, "lower"}
	mCPU  = metric{"client CPU/op", fCPU, "lower"}
	mHand = metric{"handoff p50", fHand, "lower"}
	mH99  = metric{"handoff p99", fP99, "lower"}
	mMem  = metric{"memory/waiter", fMem, "lower"}
	mDrn  = metric{"drain s", fDrain, "lower"}
)

// metricsOf lists the metrics compared for a scenario kind.
func metricsOf(kind string) []metric {
	switch kind {
	case harness.Uncontended:
		return []metric{mP50, mRate, mCPU}
	case harness.Herd:
		return []metric{mHand, mCPU}
	case harness.Depth:
		return []metric{mHand, mH99, mMem, mDrn}
	}
	if kind == harness.Contended || kind == harness.ManyLocks {
		return []metric{mRate, mCPU, {"allocs/op", fAllocs, "lower"}}
	}
	return []metric{mRate, mCPU}
}

// ratios lists every ratio of zkrecipes' median to each other lock peer's, per scenario and
// metric, then the ratios to the raw floors, in a stable order.
func (d *runData) ratios() []ratioEntry {
	var out []ratioEntry
	add := func(name string, a, b agg, better string) {
		if v, ok := ratio(a, b); ok {
			out = append(out, ratioEntry{Name: name, Value: v, Better: better})
		}
	}
	for _, s := range append(append([]spec(nil), d.plan.Lock...), d.plan.Extra...) {
		for _, m := range metricsOf(s.Kind) {
			for _, p := range d.lockPeers() {
				if p != zkrecipesName {
					add(fmt.Sprintf("%s %s × %s", s.ID, m.name, p), d.get(zkrecipesName, s.ID, m.f), d.get(p, s.ID, m.f), m.better)
				}
			}
		}
	}
	add("a p50 × raw c+gC+d", d.get(zkrecipesName, idUnc, fP50), d.get(rawName, idRawCGCD, fP50), "lower")
	add("d handoff p50 × raw idle handoff", d.get(zkrecipesName, idHerd, fHand), d.get(rawName, idRawHand, fP50), "lower")
	add("c cycles/s × raw pairs/s (64 sessions)", d.get(zkrecipesName, idMany, fRate), d.get(rawName, idRawSes64, fRate), "higher")
	for _, id := range []string{idCont8, idCont64} {
		add(id+" acq/s × handoff floor", d.get(zkrecipesName, id, fRate), handoffFloor(d), "higher")
	}
	return append(out, d.stickyRatios()...)
}

// record builds the history entry of a finished run.
func (d *runData) record(ctx context.Context) historyRecord {
	h := historyRecord{Version: 1, Time: d.started.UTC().Format(time.RFC3339), Command: d.command,
		Plan: d.plan.Name, Reps: d.reps, Minutes: d.elapsed.Minutes(), Machine: d.env, Ratios: d.ratios(),
		Results: map[string][]harness.Result{}, Counts: map[string]countResult{}, Limits: d.limits}
	h.Commit = orUnknown(cmdOutput(ctx, "git", "rev-parse", "HEAD"))
	h.Dirty = cmdOutput(ctx, "git", "status", "--porcelain", "--untracked-files=no") != ""
	for k, rs := range d.results {
		h.Results[k.peer+"|"+k.id] = rs
	}
	for k, c := range d.counts {
		h.Counts[k.peer+"|"+k.id] = c
	}
	for _, n := range d.notes {
		h.Notes = append(h.Notes, scrubPaths(n))
	}
	return h
}

// historyFile is the file name of a run started at t: sortable, one per run.
func historyFile(t time.Time) string { return t.UTC().Format("20060102T150405Z") + ".json" }

// lastRecord reads the newest record in dir of the given plan, skipping the file named skip.
// found is false when there is none.
func lastRecord(dir, plan, skip string) (rec historyRecord, file string, found bool, err error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return rec, "", false, nil
	}
	if err != nil {
		return rec, "", false, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".json") && n != skip && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return rec, "", false, err
		}
		var r historyRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return rec, "", false, fmt.Errorf("bench: history %s: %w", n, err)
		}
		if r.Plan == plan {
			return r, n, true, nil
		}
	}
	return rec, "", false, nil
}

// regressions compares each ratio to the same ratio in prev: one line per ratio that got more
// than limit worse (lower where higher is better, higher where lower is better).
func regressions(prev, cur []ratioEntry, limit float64) []string {
	old := map[string]float64{}
	for _, r := range prev {
		old[r.Name] = r.Value
	}
	var out []string
	for _, r := range cur {
		o, ok := old[r.Name]
		if !ok || o <= 0 || r.Value <= 0 {
			continue
		}
		change := r.Value/o - 1
		if (r.Better == "higher" && change < -limit) || (r.Better == "lower" && change > limit) {
			out = append(out, fmt.Sprintf("%s: %.3f → %.3f (%+.0f %%, %s is better)", r.Name, o, r.Value, change*100, r.Better))
		}
	}
	return out
}

// keepHistory writes this run's record into dir and prints a warning for every ratio that
// regressed by more than 10 % against the last recorded run of the same plan.
func keepHistory(ctx context.Context, d *runData, dir string, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rec := d.record(ctx)
	name := historyFile(d.started)
	prev, prevName, found, err := lastRecord(dir, rec.Plan, name)
	if err != nil {
		fmt.Fprintf(log, "bench: warning: cannot read the history: %v\n", err)
	}
	b, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "bench: history: wrote %s\n", filepath.Join(dir, name))
	if !found {
		fmt.Fprintf(log, "bench: history: no earlier %s run to compare with\n", rec.Plan)
		return nil
	}
	regs := regressions(prev.Ratios, rec.Ratios, regressionLimit)
	for _, r := range regs {
		fmt.Fprintf(log, "bench: WARNING: regression > %.0f %% against %s (commit %.12s): %s\n",
			regressionLimit*100, prevName, prev.Commit, r)
	}
	if len(regs) == 0 {
		fmt.Fprintf(log, "bench: history: no ratio regressed by more than %.0f %% against %s\n", regressionLimit*100, prevName)
	}
	return nil
}
