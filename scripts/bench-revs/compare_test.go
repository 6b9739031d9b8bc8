package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want stat
	}{
		{"empty", nil, stat{}},
		{"only missing values", []float64{0, -1, math.NaN(), math.Inf(1)}, stat{}},
		{"one", []float64{2}, stat{med: 2, lo: 2, hi: 2, q1: 2, q3: 2, n: 1, ok: true}},
		{"odd count", []float64{3, 1, 2}, stat{med: 2, lo: 1, hi: 3, q1: 1, q3: 3, n: 3, ok: true}},
		{"even count averages the middle two", []float64{4, 1, 3, 2}, stat{med: 2.5, lo: 1, hi: 4, q1: 1.25, q3: 3.75, n: 4, ok: true}},
		{"missing values left out", []float64{0, 5, 1, 0}, stat{med: 3, lo: 1, hi: 5, q1: 1, q3: 5, n: 2, ok: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarize(tc.in); got != tc.want {
				t.Fatalf("summarize(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

// TestQuartile checks the quartiles against Python's statistics.quantiles(xs, n=4) (method
// "exclusive"), the values docs/performance.md quotes.
func TestQuartile(t *testing.T) {
	tests := []struct {
		ys     []float64 // sorted
		q1, q3 float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3.25, 9.75},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, 3.75, 11.25},
		{[]float64{1, 2, 4, 8, 16}, 1.5, 12},
	}
	for _, tc := range tests {
		s := summarize(tc.ys)
		if math.Abs(s.q1-tc.q1) > 1e-9 || math.Abs(s.q3-tc.q3) > 1e-9 {
			t.Errorf("quartiles of %v = %v, %v; want %v, %v", tc.ys, s.q1, s.q3, tc.q1, tc.q3)
		}
	}
}

func TestSchedule(t *testing.T) {
	tests := []struct {
		name              string
		rounds, countRnds int
		alternate         bool
		want              []step
	}{
		{"one round counted", 1, 1, false, []step{{1, sideBase, true}, {1, sideHead, true}}},
		{"interleaved, first round counted", 3, 1, false, []step{
			{1, sideBase, true}, {1, sideHead, true}, {2, sideBase, false}, {2, sideHead, false},
			{3, sideBase, false}, {3, sideHead, false}}},
		{"alternate runs head first in even rounds", 3, 0, true, []step{
			{1, sideBase, false}, {1, sideHead, false}, {2, sideHead, false}, {2, sideBase, false},
			{3, sideBase, false}, {3, sideHead, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := schedule(tc.rounds, tc.countRnds, tc.alternate); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("schedule = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// fakeRun is a run of one side in one round with zkrecipes' and zk.Lock's b8 rate and d handoff.
func fakeRun(round, side int, zkRate, ykRate, zkHand, ykHand float64) runRecord {
	return runRecord{step: step{round: round, side: side}, record: record{Results: map[string][]result{
		zkrecipesName + "|b8": {{Kind: "contended", CyclesPerSec: zkRate, CPUUsPerOp: 100}},
		yardstickName + "|b8": {{Kind: "contended", CyclesPerSec: ykRate, CPUUsPerOp: 50}},
		zkrecipesName + "|d":  {{Kind: "herd", HandoffP50Ms: zkHand}, {Kind: "herd", HandoffP50Ms: zkHand + 2}, {Kind: "herd", Error: "x", HandoffP50Ms: 99}},
		yardstickName + "|d":  {{Kind: "herd", HandoffP50Ms: ykHand}},
	}}}
}

func TestRows(t *testing.T) {
	// Round 1 runs unloaded, round 2 at half speed for both peers: the ratios to zk.Lock and the
	// per-round head/base do not see the load; head is 10 % slower than base in both rounds.
	runs := []runRecord{
		fakeRun(1, sideBase, 100, 200, 2, 4), fakeRun(1, sideHead, 90, 200, 3, 4),
		fakeRun(2, sideBase, 50, 100, 4, 8), fakeRun(2, sideHead, 45, 100, 6, 8),
	}
	got := rows(runs, []string{"b8", "d", "nosuch"})
	if len(got) != 6 { // b8: rate, CPU; d: handoff, CPU; nosuch: rate, CPU (all missing)
		t.Fatalf("got %d rows, want 6", len(got))
	}
	near := func(what string, s stat, med, lo, hi float64) {
		t.Helper()
		if !s.ok || math.Abs(s.med-med) > 1e-9 || math.Abs(s.lo-lo) > 1e-9 || math.Abs(s.hi-hi) > 1e-9 {
			t.Errorf("%s = %+v, want median %v [%v–%v]", what, s, med, lo, hi)
		}
	}
	rate := got[0]
	if rate.id != "b8" || rate.m.name != mRate.name {
		t.Fatalf("first row %s %s, want b8 %s", rate.id, rate.m.name, mRate.name)
	}
	near("b8 base", rate.zk[sideBase], 75, 50, 100)
	near("b8 head", rate.zk[sideHead], 67.5, 45, 90)
	near("b8 zk.Lock", rate.yard, 150, 100, 200)
	near("b8 base × zk.Lock", rate.vsYard[sideBase], 0.5, 0.5, 0.5)
	near("b8 head × zk.Lock", rate.vsYard[sideHead], 0.45, 0.45, 0.45)
	near("b8 head/base", rate.headBase, 0.9, 0.9, 0.9)
	near("b8 head/base of × zk.Lock", rate.headBaseNormalize, 0.9, 0.9, 0.9)
	hand := got[2]
	if hand.id != "d" || hand.m.name != mHand.name {
		t.Fatalf("third row %s %s, want d %s", hand.id, hand.m.name, mHand.name)
	}
	// A run's figure is the median of its repetitions (the failed one left out): base 3 and 5,
	// head 4 and 7; head/base per round 4/3 and 7/5.
	near("d base", hand.zk[sideBase], 4, 3, 5)
	near("d head", hand.zk[sideHead], 5.5, 4, 7)
	near("d head/base", hand.headBase, (4.0/3+1.4)/2, 4.0/3, 1.4)
	if got[4].zk[sideBase].ok || got[4].headBase.ok {
		t.Errorf("a scenario no run has should have no figures: %+v", got[4])
	}
}

func TestRowsSkipsIncompleteRounds(t *testing.T) {
	runs := []runRecord{fakeRun(1, sideBase, 100, 200, 2, 4), fakeRun(1, sideHead, 80, 200, 2, 4), fakeRun(2, sideBase, 10, 200, 2, 4)}
	r := rows(runs, []string{"b8"})[0]
	if r.headBase.n != 1 || r.headBase.med != 0.8 {
		t.Fatalf("head/base = %+v, want the one complete round's 0.8", r.headBase)
	}
	if r.zk[sideBase].n != 2 {
		t.Fatalf("base figure over %d runs, want 2", r.zk[sideBase].n)
	}
}

func TestCountRows(t *testing.T) {
	counts := func(get, notif, per int64) map[string]count {
		return map[string]count{
			zkrecipesName + "|d":  {Requests: map[string]int64{"1": per, "4": get, "-11": 64, "101": 3, "19": 0}, Notifications: notif, Per: per, PerWhat: "release"},
			yardstickName + "|d":  {Requests: map[string]int64{"1": per, "3": per}, Notifications: per, Per: per, PerWhat: "release"},
			zkrecipesName + "|b8": {Err: "boom", Per: 10},
		}
	}
	runs := []runRecord{
		{step: step{1, sideBase, true}, record: record{Counts: counts(10, 10, 10)}},
		{step: step{1, sideHead, true}, record: record{Counts: counts(12, 12, 10)}},
		{step: step{2, sideHead, true}, record: record{Counts: counts(16, 16, 10)}},
		{step: step{3, sideHead, false}},
	}
	got := countRows(runs, []string{"b8", "d"})
	if len(got) != 2 {
		t.Fatalf("got %d count rows, want 2 (b8's count failed): %+v", len(got), got)
	}
	base, head := got[0], got[1]
	if base.side != sideBase || head.side != sideHead || base.per != "release" {
		t.Fatalf("rows %+v, %+v", base, head)
	}
	if base.zkReq != 2 || base.zkNotif != 1 || base.yardReq != 2 || base.yardNotif != 1 {
		t.Errorf("base = %+v, want 2 requests (create, getData; closeSession and setWatches left out), 1 notification", base)
	}
	// head: (12+16) getData over 20 releases, plus one create each.
	if head.zkReq != 2.4 || head.zkNotif != 1.4 || byOpcode(head.zkByOp) != "create 1.00, getData 1.40" {
		t.Errorf("head = %+v (%s), want 2.4 requests, 1.4 notifications", head, byOpcode(head.zkByOp))
	}
}

func TestReadRecord(t *testing.T) {
	dir := t.TempDir()
	js := `{"version":1,"commit":"abc","results":{"zkrecipes|b8":[{"peer":"zkrecipes","kind":"contended","cycles_per_sec":12.5,"client_cpu_us_per_cycle":900}]},
"counts":{"zkrecipes|b8":{"Requests":{"4":3},"Notifications":2,"Per":3,"PerWhat":"acquisition","Err":""}}}`
	if err := os.WriteFile(filepath.Join(dir, "20261125T000000Z.json"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := readRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Commit != "abc" || r.figure(zkrecipesName, "b8", mRate) != 12.5 || r.figure(zkrecipesName, "b8", mCPU) != 900 ||
		r.Counts[zkrecipesName+"|b8"].Requests["4"] != 3 {
		t.Fatalf("record = %+v", r)
	}
	if _, err := readRecord(t.TempDir()); err == nil || !strings.Contains(err.Error(), "found 0") {
		t.Fatalf("an empty directory: err = %v, want one naming the count", err)
	}
}

func TestParseLoadAvg(t *testing.T) {
	tests := []struct {
		in   string
		want [3]float64
	}{
		{"1.06 0.74 1.38 3/108 8565\n", [3]float64{1.06, 0.74, 1.38}},
		{"", [3]float64{}},
		{"x 2", [3]float64{0, 2, 0}},
	}
	for _, tc := range tests {
		if got := parseLoadAvg(tc.in); got != tc.want {
			t.Errorf("parseLoadAvg(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestCheckOptions(t *testing.T) {
	ok := options{base: "main^", head: "HEAD", rounds: 5, reps: 1, countRounds: 1, only: "b8", runTimeout: time.Minute}
	tests := []struct {
		name   string
		change func(*options)
		want   string // "" = valid
	}{
		{"valid", func(*options) {}, ""},
		{"no base", func(o *options) { o.base = "" }, "-base is required"},
		{"no rounds", func(o *options) { o.rounds = 0 }, "-rounds 0"},
		{"no reps", func(o *options) { o.reps = 0 }, "-reps 0"},
		{"more counted rounds than rounds", func(o *options) { o.countRounds = 6 }, "-count-rounds 6"},
		{"no scenarios", func(o *options) { o.only = " " }, "-only is empty"},
		{"no timeout", func(o *options) { o.runTimeout = 0 }, "-run-timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.change(&o)
			err := o.check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("check() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("check() = %v, want errUsage naming %q", err, tc.want)
			}
		})
	}
}
