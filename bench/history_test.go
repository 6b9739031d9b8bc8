package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRegressions(t *testing.T) {
	hi := func(n string, v float64) ratioEntry { return ratioEntry{Name: n, Value: v, Better: "higher"} }
	lo := func(n string, v float64) ratioEntry { return ratioEntry{Name: n, Value: v, Better: "lower"} }
	tests := []struct {
		name      string
		prev, cur []ratioEntry
		want      int
	}{
		{"no history", nil, []ratioEntry{hi("b8", 1)}, 0},
		{"same", []ratioEntry{hi("b8", 1), lo("a", 1)}, []ratioEntry{hi("b8", 1), lo("a", 1)}, 0},
		{"higher-better drops 9 %", []ratioEntry{hi("b8", 1)}, []ratioEntry{hi("b8", 0.91)}, 0},
		{"higher-better drops 11 %", []ratioEntry{hi("b8", 1)}, []ratioEntry{hi("b8", 0.89)}, 1},
		{"higher-better rises 50 %", []ratioEntry{hi("b8", 1)}, []ratioEntry{hi("b8", 1.5)}, 0},
		{"lower-better rises 11 %", []ratioEntry{lo("a", 1)}, []ratioEntry{lo("a", 1.11)}, 1},
		{"lower-better rises 9 %", []ratioEntry{lo("a", 1)}, []ratioEntry{lo("a", 1.09)}, 0},
		{"lower-better falls 50 %", []ratioEntry{lo("a", 1)}, []ratioEntry{lo("a", 0.5)}, 0},
		{"new ratio, no baseline", []ratioEntry{lo("a", 1)}, []ratioEntry{lo("e10000", 9)}, 0},
		{"zero baseline ignored", []ratioEntry{lo("a", 0)}, []ratioEntry{lo("a", 9)}, 0},
		{"two of three", []ratioEntry{lo("a", 1), hi("b8", 1), hi("c", 2)},
			[]ratioEntry{lo("a", 1.2), hi("b8", 0.5), hi("c", 2.1)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := regressions(tt.prev, tt.cur, regressionLimit)
			if len(got) != tt.want {
				t.Fatalf("got %d warnings %q, want %d", len(got), got, tt.want)
			}
		})
	}
}

// A run writes one record; the next run of the same plan warns of each ratio that regressed by
// more than 10 %, names the run it compared with, and a run of another plan is not compared.
func TestKeepHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	ctx := context.Background()
	d1 := fakeRun()
	var log bytes.Buffer
	if err := keepHistory(ctx, d1, dir, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "no earlier default run") {
		t.Errorf("first run: %s", log.String())
	}
	rec := readRecord(t, filepath.Join(dir, historyFile(d1.started)))
	if rec.Plan != "default" || len(rec.Ratios) == 0 || len(rec.Results) == 0 || rec.Machine.Cores != 2 {
		t.Fatalf("record lacks figures: plan %q, %d ratios, %d results", rec.Plan, len(rec.Ratios), len(rec.Results))
	}
	if !reflect.DeepEqual(rec.Results["zkrecipes|b8"], d1.results[key{zkrecipesName, idCont8}]) {
		t.Error("raw results not kept")
	}
	d2 := fakeRun()
	d2.started = d1.started.Add(time.Hour)
	for i := range d2.results[key{zkrecipesName, idCont8}] {
		d2.results[key{zkrecipesName, idCont8}][i].CyclesPerSec = 800 // 20 % fewer acq/s than every peer
	}
	log.Reset()
	if err := keepHistory(ctx, d2, dir, &log); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	if !strings.Contains(out, "WARNING: regression") || !strings.Contains(out, "b8 acq/s × Curator: 1.000 → 0.800") ||
		!strings.Contains(out, historyFile(d1.started)) {
		t.Errorf("second run: %s", out)
	}
	if strings.Contains(out, "a p50") {
		t.Errorf("an unchanged ratio was reported: %s", out)
	}
	d3 := fakeRun()
	d3.plan.Name, d3.started = "quick", d2.started.Add(time.Hour)
	log.Reset()
	if err := keepHistory(ctx, d3, dir, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "no earlier quick run") {
		t.Errorf("a quick run was compared with a default one: %s", log.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files, want 3", len(entries))
	}
}

func readRecord(t *testing.T, path string) historyRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r historyRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
