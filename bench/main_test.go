package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

func TestMain(m *testing.M) { os.Exit(zktest.VerifyNoLeaks(m)) }

// tinyPlan is the quick plan cut down to a few seconds: short windows, a 100-deep queue.
func tinyPlan() plan {
	p := buildPlan("tiny", timing{warm: 50 * time.Millisecond, window: 200 * time.Millisecond,
		rawWin: 100 * time.Millisecond, handoffWin: 150 * time.Millisecond, warmCycles: 10, releases: 2,
		depths: []int{100}, depthBudget: func(int) time.Duration { return 30 * time.Second }, limitSteps: []int{300},
		multiWarmCycles: 5, multiWin: 300 * time.Millisecond, naiveWin: 300 * time.Millisecond})
	p.Lock = without(p.Lock, idCont64)
	p.Multi = keep(p.Multi, multiUncID(1, "tx"), multiUncID(4, "tx"), multiUncID(4, "seq"), idMultiContTx, idMultiContSeq)
	p.Count = keep(p.Count, idUnc, idCont8, idHerd, multiUncID(4, "tx"), idS1, idS2)
	for i := range p.Count {
		p.Count[i].Duration = 200 * time.Millisecond
		p.Count[i].Releases = 2
	}
	return p
}

// The driver's quick logic over the Go peers only (raw floor, zkrecipes, zk.Lock) against the real
// server it launches itself (forceSync=yes): every table is written, the raw floor and the counting pass have figures, and no
// mutual-exclusion violation is reported.
func TestQuickRunGoPeers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "benchmarks.md")
	o := options{out: out, quick: true, peers: "raw-floor,zkrecipes,zkrecipes-sticky,go-zookeeper-zklock",
		command: "go run ./bench -quick (test)"}
	var stdout, log bytes.Buffer
	if err := runPlan(ctx, o, tinyPlan(), &stdout, &log); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if doc != stdout.String() {
		t.Error("the file and stdout differ")
	}
	for _, want := range []string{
		"`go run ./bench -quick (test)`", "## Set-up", "Server configuration", "forceSync=yes", "tickTime=2000",
		"## Targets", "## Raw floor", "## a. Uncontended", "## b. Contended", "## c. Many locks", "## d. Herd",
		"## e. Depth", "## f. Other recipes", "## m. Multi-locks", "## Requests by opcode", "github.com/go-zookeeper/zk v1.0.4",
		"| **zkrecipes** |", "| go-zookeeper zk.Lock |", "## s. Sticky leases", "| s2 affinity (8 sessions, 64 locks, 90 % own) | **zkrecipes sticky** |",
		"| **zkrecipes sticky** | create",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	d := reparse(t, doc)
	if d["create(ES)+getChildren+delete p50 ms (the recipe floor)"] == "–" {
		t.Error("raw floor has no c+gC+d figure")
	}
	if strings.Contains(doc, "failed (see notes)") || strings.Contains(doc, "failed as a whole") {
		t.Errorf("a scenario failed:\n%s", doc)
	}
	if !strings.Contains(doc, "| zkrecipes transactional (NewTxMultiMutex, paths unsorted) |") {
		t.Errorf("multi-lock table lacks the transactional row:\n%s", doc)
	}
	if !strings.Contains(doc, "| 8 | **zkrecipes** |") || !strings.Contains(doc, "| 0 / ") {
		t.Errorf("contended table lacks zkrecipes or a zero violation count:\n%s", doc)
	}
	checkMultiCounts(t, doc)
}

// checkMultiCounts: the counting pass read the server's counters for m4-tx: one session's
// transactional k = 4 cycle after its first is one multi create and one multi delete, each its
// own fsync (fewer when the server's own transactions share them; more only when they add some).
func checkMultiCounts(t *testing.T, doc string) {
	t.Helper()
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(l, "| m4-tx | **zkrecipes** transactional |") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		writes, err1 := strconv.ParseFloat(cells[4], 64)
		fsyncs, err2 := strconv.ParseFloat(cells[5], 64)
		own := strings.Contains(cells[6], "of the server's own")
		if err1 != nil || err2 != nil || writes != 2 || fsyncs < 1 || (fsyncs > writes && !own) {
			t.Errorf("m4-tx: write transactions %q and fsyncs %q per acquisition after the first: want 2, and 1 to 2 fsyncs", cells[4], cells[5])
		}
		return
	}
	t.Errorf("no m4-tx row in the multi-lock counts:\n%s", doc)
}

// reparse maps the first cell of every two-column table row to its second cell.
func reparse(t *testing.T, doc string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(doc, "\n") {
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		if len(cells) == 2 {
			out[cells[0]] = cells[1]
		}
	}
	return out
}

func TestAggregate(t *testing.T) {
	r := func(v float64) harness.Result { return harness.Result{CyclesPerSec: v} }
	tests := []struct {
		name string
		in   []harness.Result
		want agg
	}{
		{"none", nil, agg{}},
		{"one", []harness.Result{r(5)}, agg{5, 5, 5, 1, true}},
		{"odd", []harness.Result{r(3), r(1), r(2)}, agg{2, 1, 3, 3, true}},
		{"even", []harness.Result{r(4), r(1), r(2), r(3)}, agg{2.5, 1, 4, 4, true}},
		{"failed left out", []harness.Result{r(4), {CyclesPerSec: 9, Error: "x"}, {Unsupported: true}}, agg{4, 4, 4, 1, true}},
	}
	for _, tt := range tests {
		if got := aggregate(tt.in, fRate); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{fmtNum(12345.4), "12,345"},
		{fmtNum(12.34), "12.3"},
		{fmtNum(1.234), "1.23"},
		{fmtNum(0.1234), "0.123"},
		{fmtAgg(agg{2, 1, 3, 3, true}), "2.00 [1.00–3.00]"},
		{fmtAgg(agg{}), "–"},
		{fmtRatio(1.5, true), "1.50×"},
		{fmtRatio(0, false), "–"},
		{slug("go-zookeeper zk.Lock"), "go-zookeeper-zklock"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
