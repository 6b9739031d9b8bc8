package main

import (
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// fakeRun is a runData with a figure in every table, as a full run would have, and notes that
// quote absolute paths the way failing commands do.
func fakeRun() *runData {
	p := defaultPlan()
	d := &runData{plan: p, reps: 3, command: "go run ./bench -out docs/benchmarks.md",
		started: time.Date(2026, 11, 23, 11, 20, 0, 0, time.UTC), elapsed: 12 * time.Minute,
		env: envInfo{Cores: 2, CPUModel: "AMD EPYC", Kernel: "Linux 6.18", Go: "go1.26.8", GoZookeeper: "v1.0.4",
			ZooKeeper: "3.8.0", Java: "openjdk 17", Curator: "5.4.0-3", Kazoo: "2.8.0", Python: "Python 3.11.2",
			ServerConfig: []string{"forceSync=yes", "tickTime=2000"}},
		peers:   []string{rawName, zkrecipesName, goLockName, curatorName, kazooName},
		results: map[key][]harness.Result{}, counts: map[key]countResult{},
		notes: []string{"rep 1: kazoo e10000: error in /tmp/kazoo-bench-123/kazoo_bench.py line 3",
			"Curator peer skipped: javac: exec: \"javac\": executable file not found in $PATH (/usr/lib/jvm/bin)"},
	}
	r := harness.Result{Cycles: 100, CyclesPerSec: 1000, P50Ms: 1, P99Ms: 2, HandoffP50Ms: 1, CPUUsPerOp: 300,
		MemPerWaiter: 2000, Seconds: 1}
	for _, ss := range [][]spec{p.Raw, p.Lock, p.Extra} {
		for _, s := range ss {
			for _, peer := range d.peers {
				d.results[key{peer, s.ID}] = []harness.Result{r, r, r}
			}
		}
	}
	return d
}

// Generated docs name repository-relative paths only: the Method line points at the reference
// beside the repository, and notes quoting machine paths are scrubbed. (Failed before the fix:
// the Method line named /work/shared/reference/peer-bench.md and the kazoo row /usr/bin/python3.)
func TestReportHasNoAbsolutePath(t *testing.T) {
	var b strings.Builder
	if err := writeReport(&b, fakeRun()); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	for i, l := range strings.Split(doc, "\n") {
		if p := hasAbsPath(l); p != "" {
			t.Errorf("line %d names the absolute path %q: %s", i+1, p, l)
		}
	}
	if !strings.Contains(doc, "`../shared/reference/peer-bench.md`") {
		t.Error("the Method line does not name the reference relative to the repository")
	}
}

func TestScrubPaths(t *testing.T) {
	tests := []struct{ in, want string }{
		{"error in /tmp/kazoo-bench-1/kazoo_bench.py line 3", "error in <tmp>/kazoo-bench-1/kazoo_bench.py line 3"},
		{"see (/usr/lib/jvm/bin)", "see (…/bin)"},
		{"client CPU µs/op and 1 / (delete + gC)", "client CPU µs/op and 1 / (delete + gC)"},
		{"/work/shared/x.md", "…/x.md"},
		{"no path here", "no path here"},
	}
	for _, tt := range tests {
		if got := scrubPaths(tt.in); got != tt.want {
			t.Errorf("scrubPaths(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if p := hasAbsPath(scrubPaths(tt.in)); p != "" {
			t.Errorf("scrubbed %q still has %q", tt.in, p)
		}
	}
}
