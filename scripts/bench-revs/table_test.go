package main

import (
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	runs := []runRecord{
		fakeRun(1, sideBase, 100, 200, 2, 4), fakeRun(1, sideHead, 90, 200, 3, 4),
		fakeRun(2, sideBase, 50, 100, 4, 8), fakeRun(2, sideHead, 45, 100, 6, 8),
	}
	runs[0].load, runs[1].load, runs[2].load, runs[3].load = [3]float64{1, 2, 3}, [3]float64{2, 2, 3}, [3]float64{3, 2, 3}, [3]float64{4, 2, 3}
	runs[0].count, runs[0].Commit = true, "d58c00e0000"
	runs[0].Counts = map[string]count{zkrecipesName + "|b8": {Requests: map[string]int64{"1": 4, "4": 2}, Notifications: 2, Per: 2}}
	c := comparison{command: "go run ./scripts/bench-revs -base x", started: time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC),
		base: revision{spec: "x", commit: "d58c00e0000"}, head: revision{spec: "HEAD", commit: "7ff9e170000", dirty: true},
		rounds: 2, reps: 1, ids: []string{"b8", "d"}, runs: runs}
	var b strings.Builder
	c.write(&b)
	out := b.String()
	for _, want := range []string{
		"## b8, d: base d58c00e, head 7ff9e17",
		"base: x = d58c00e. head: HEAD = 7ff9e17 + uncommitted changes.",
		"load average (1 min) at the runs' starts 2.50 [1.00–4.00]",
		"| b8 | acq/s ↑ | 75.0 [50.0–100] | 67.5 [45.0–90.0] | 150 [100–200] | 0.50× | 0.45× | 0.900 | 0.900 |",
		"| b8 | client CPU µs/acq ↓ | 100 | 100 | 50.0 | 2.00× | 2.00× | 1.000 | 1.000 |",
		"| d | release → next acquire p50 ms ↓ | 4.00 [3.00–5.00] | 5.50 [4.00–7.00] | 6.00 [4.00–8.00] | 0.69× [0.62×–0.75×] | 0.94× [0.88×–1.00×] | 1.367 [1.333–1.400] | 1.367 [1.333–1.400] |",
		"| d | client CPU µs/acq ↓ | – | – | – | – | – | – | – |",
		"Quartiles over rounds of head/base of × zk.Lock (the spread this load leaves): b8 acq/s 0.900–0.900; " +
			"b8 client CPU µs/acq 1.000–1.000; d release → next acquire p50 ms 1.333–1.400; d client CPU µs/acq –.",
		"| b8 | base | 3.00 | 1.00 | create 2.00, getData 1.00 | – | – |",
		"| 1 | base | d58c00e | 1.00 / 2.00 / 3.00 | 0.00 | 0 | yes |",
		"| 2 | head |  | 4.00 / 2.00 / 3.00 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestFmtStat(t *testing.T) {
	tests := []struct {
		s    stat
		f    func(float64) string
		want string
	}{
		{stat{}, fmtNum, "–"},
		{stat{med: 1234.4, lo: 1234.4, hi: 1234.4, n: 1, ok: true}, fmtNum, "1234"},
		{stat{med: 2, lo: 2, hi: 2, n: 3, ok: true}, fmtTimes, "2.00×"},
		{stat{med: 1.0049, lo: 0.9, hi: 1.1, n: 3, ok: true}, fmtRel, "1.005 [0.900–1.100]"},
		{stat{med: 12.34, lo: 0.5, hi: 99, n: 3, ok: true}, fmtNum, "12.3 [0.50–99.0]"},
	}
	for _, tc := range tests {
		if got := fmtStat(tc.s, tc.f); got != tc.want {
			t.Errorf("fmtStat(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
