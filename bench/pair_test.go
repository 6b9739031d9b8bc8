package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

func TestPairRatiosAndQuartiles(t *testing.T) {
	runs := []pairRun{
		{harness.Result{CPUUsPerOp: 100}, harness.Result{CPUUsPerOp: 110}},
		{harness.Result{CPUUsPerOp: 200}, harness.Result{CPUUsPerOp: 180}},
		{harness.Result{CPUUsPerOp: 0}, harness.Result{CPUUsPerOp: 50}}, // no figure: left out
		{harness.Result{CPUUsPerOp: 100}, harness.Result{CPUUsPerOp: 100}},
	}
	r := ratios(runs, func(r harness.Result) float64 { return r.CPUUsPerOp })
	if len(r) != 3 || r[0] != 0.9 || r[1] != 1 || r[2] != 1.1 {
		t.Fatalf("ratios = %v, want [0.9 1 1.1]", r)
	}
	med, q1, q3, lo, hi := quartiles(r)
	if med != 1 || q1 != 1 || q3 != 1.1 || lo != 0.9 || hi != 1.1 { // nearest rank
		t.Fatalf("quartiles = %v %v %v %v %v", med, q1, q3, lo, hi)
	}
	if m, _, _, _, _ := quartiles(nil); m != 0 {
		t.Fatalf("quartiles(nil) = %v", m)
	}
}

func TestPairRefusesWhatItCannotRun(t *testing.T) {
	for _, name := range []string{"curator", "kazoo", "raw-floor", "nope"} {
		if _, err := goPeer(name); !errors.Is(err, errPairPeers) {
			t.Errorf("goPeer(%q) = %v, want errPairPeers", name, err)
		}
	}
	for _, name := range []string{"zkrecipes", "go-zookeeper-zklock", "zkrecipes-no-cancel"} {
		if _, err := goPeer(name); err != nil {
			t.Errorf("goPeer(%q): %v", name, err)
		}
	}
	if _, err := pairScenario("b8"); err != nil {
		t.Fatal(err)
	}
	if _, err := pairScenario("zz"); err == nil {
		t.Fatal("pairScenario accepted an unknown id")
	}
}

// The pair mode's report goes to -out too, as the plan's does: session 15 found it only on
// stdout.
func TestEmitTextWritesOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.md")
	var stdout strings.Builder
	if err := emitText("# Pair mode\n", out, &stdout); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil || string(got) != "# Pair mode\n" || stdout.String() != "# Pair mode\n" {
		t.Fatalf("file %q (%v), stdout %q; want the report in both", got, err, stdout.String())
	}
}

// -pair-warmup sets how long each run contends before its window (the default 0.5 s is the
// bench's): session 15 asked whether a process's first seconds explain the short windows' gap.
func TestPairScenarioTakesTheWarmup(t *testing.T) {
	defer func(w time.Duration) { *pairWarmup = w }(*pairWarmup)
	*pairWarmup = 7 * time.Second
	sc, err := pairScenario(idCont8)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Warmup != 7*time.Second || sc.Duration != *pairWindow {
		t.Fatalf("warm-up %v, window %v; want 7s and %v", sc.Warmup, sc.Duration, *pairWindow)
	}
}
