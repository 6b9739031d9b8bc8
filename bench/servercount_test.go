package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// mntr38 is an excerpt of a ZooKeeper 3.8.0 mntr answer, the three counters among others.
const mntr38 = "zk_version\t3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC\n" +
	"zk_server_state\tstandalone\n" +
	"zk_avg_fsynctime\t0.4\n" +
	"zk_cnt_fsynctime\t141\n" +
	"zk_sum_fsynctime\t57\n" +
	"zk_cnt_updatelatency\t800\n" +
	"zk_sum_updatelatency\t948\n" +
	"zk_sum_sync_processor_batch_size\t1322\n" +
	"zk_cnt_propagation_latency\t820\n" +
	"zk_sum_propagation_latency\t791\n"

func TestParseServerCounters(t *testing.T) {
	tests := []struct {
		name, in string
		want     serverCounters
		err      bool
	}{
		{"3.8 answer", mntr38, serverCounters{Fsyncs: 141, ClientWrites: 800, Txns: 820}, false},
		{"floats, spaces, CRLF", " zk_cnt_fsynctime\t2.0\r\nzk_cnt_updatelatency\t3 \r\nzk_cnt_propagation_latency\t4.0\r\n",
			serverCounters{Fsyncs: 2, ClientWrites: 3, Txns: 4}, false},
		{"the average is not the count", "zk_avg_fsynctime\t9\nzk_cnt_updatelatency\t3\nzk_cnt_propagation_latency\t4\n",
			serverCounters{}, true},
		{"not whitelisted", "mntr is not executed because it is not in the whitelist.\n", serverCounters{}, true},
		{"garbage value", "zk_cnt_fsynctime\tx\nzk_cnt_updatelatency\t3\nzk_cnt_propagation_latency\t4\n", serverCounters{}, true},
		{"empty", "", serverCounters{}, true},
	}
	for _, tt := range tests {
		got, err := parseServerCounters(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v, error %v", tt.name, got, err, tt.want, tt.err)
		}
		if err != nil && !errors.Is(err, errNoCounters) {
			t.Errorf("%s: error %v is not errNoCounters", tt.name, err)
		}
	}
}

func TestServerCountersArithmetic(t *testing.T) {
	before := serverCounters{Fsyncs: 10, ClientWrites: 20, Txns: 25}
	after := serverCounters{Fsyncs: 110, ClientWrites: 420, Txns: 430}
	d := after.sub(before)
	if d != (serverCounters{Fsyncs: 100, ClientWrites: 400, Txns: 405}) {
		t.Fatalf("sub: %+v", d)
	}
	if d.serverOwn() != 5 {
		t.Errorf("serverOwn = %d, want 5", d.serverOwn())
	}
	if g, ok := d.perFsync(); !ok || g != 4.05 {
		t.Errorf("perFsync = %v, %v; want 4.05", g, ok)
	}
	if _, ok := (serverCounters{ClientWrites: 3, Txns: 3}).perFsync(); ok {
		t.Error("perFsync without an fsync (forceSync=no) is a figure")
	}
	if own := (serverCounters{ClientWrites: 5, Txns: 3}).serverOwn(); own != 0 {
		t.Errorf("serverOwn below zero: %d", own)
	}
	c := countResult{Per: 200, Server: &d}
	if v, ok := c.serverPerOp(sFsyncs); !ok || v != 0.5 {
		t.Errorf("fsyncs per acquisition = %v, %v; want 0.5", v, ok)
	}
	if v, ok := c.serverPerOp(sTxns); !ok || v != 2 {
		t.Errorf("write transactions per acquisition = %v, %v; want 2", v, ok)
	}
	for _, c := range []countResult{{Per: 200}, {Per: 0, Server: &d}} {
		if _, ok := c.serverPerOp(sFsyncs); ok {
			t.Errorf("%+v: a figure without counters or acquisitions", c)
		}
	}
}

func TestLockWrites(t *testing.T) {
	c := countResult{Per: 10, Requests: map[int32]int64{zktest.OpMulti: 20, zktest.OpCreate: 3, zktest.OpCreateContainer: 1,
		zktest.OpDelete: 2, zktest.OpGetChildren2: 40, zktest.OpGetData: 5, zktest.OpCloseSession: 1, zktest.OpSetWatches: 1}}
	if n := c.lockWrites(); n != 26 {
		t.Errorf("lockWrites = %d, want 26", n)
	}
	if v := cWrites(c); v != 2.6 {
		t.Errorf("write requests per acquisition = %v, want 2.6", v)
	}
}

func TestSkipCount(t *testing.T) {
	zkr, cur := peerEntry{peer: zkrecipesPeer(), extra: true}, peerEntry{peer: fakePeer(curatorName), extra: true}
	lock := peerEntry{peer: fakePeer(goLockName)}
	byID := map[string]spec{}
	for _, s := range countSpecs(timing{}) {
		byID[s.ID] = s
	}
	tests := []struct {
		e    peerEntry
		id   string
		skip bool
	}{
		{zkr, "m4-tx", false}, {zkr, "m4-seq", false}, {zkr, idMultiContTx, false},
		{cur, "m4-tx", true}, {cur, "m4-seq", false}, {cur, idMultiContTx, true}, {cur, idMultiContSeq, false},
		{lock, "m4-seq", true}, {lock, idMultiContSeq, true}, {lock, idMulti, true}, {lock, idCont8, false},
		{cur, idUnc, false},
	}
	for _, tt := range tests {
		s, ok := byID[tt.id]
		if !ok {
			t.Fatalf("count pass lacks %s", tt.id)
		}
		if got := skipCount(tt.e, s); got != tt.skip {
			t.Errorf("skipCount(%s, %s) = %v, want %v", tt.e.peer.Name(), tt.id, got, tt.skip)
		}
	}
}

// fakePeer is a peer that only has a name.
type fakePeer string

func (p fakePeer) Name() string { return string(p) }
func (p fakePeer) Run(ctx context.Context, servers string, scs ...harness.Scenario) ([]harness.Result, error) {
	return nil, nil
}

// The count pass covers the multi-lock scenarios with short windows, the quick plan m4 and the
// contended ones, and never the naive multi-lock.
func TestCountSpecsMulti(t *testing.T) {
	ids := map[string]spec{}
	for _, s := range defaultPlan().Count {
		ids[s.ID] = s
	}
	for _, id := range countMultiIDs {
		s, ok := ids[id]
		switch {
		case !ok:
			t.Errorf("default count pass lacks %s", id)
		case s.Duration > time.Second || s.Warmup > 100*time.Millisecond || s.WarmCycles != 0:
			t.Errorf("%s: not a short window: %+v", id, s.Scenario)
		default:
			s.Root = "/count/" + id
			if err := s.Validate(); err != nil {
				t.Errorf("%s: %v", id, err)
			}
		}
	}
	if s := ids[idMultiContSeq]; s.Sessions != 16 || s.Paths != 8 || s.Mode != harness.MultiSeq {
		t.Errorf("mc-seq is not the contended scenario of m: %+v", s.Scenario)
	}
	if _, ok := ids[idMultiContNaive]; ok {
		t.Error("the naive multi-lock is counted")
	}
	var quick []string
	for _, s := range quickPlan().Count {
		quick = append(quick, s.ID)
	}
	if got := strings.Join(quick, ","); got != "a,b8,d,m4-tx,m4-seq,mc-tx,mc-seq,s1,s2,s3,s4,s5,s5-w" {
		t.Errorf("quick count pass: %s", got)
	}
}

// The m section renders writes and fsyncs per acquisition, and the opcode table gains them. An
// uncontended count without marks (a stored run from before them) is the whole run's, and says so.
func TestMultiCountsRendering(t *testing.T) {
	d := fakeRun()
	d.counts[key{zkrecipesName, "m4-tx"}] = countResult{Per: 100, PerWhat: "acquisition",
		Requests: map[int32]int64{zktest.OpMulti: 200, zktest.OpGetChildren2: 400, zktest.OpCloseSession: 1},
		Server:   &serverCounters{Fsyncs: 202, ClientWrites: 202, Txns: 202}}
	d.counts[key{curatorName, "m4-seq"}] = countResult{Per: 50, PerWhat: "acquisition",
		Requests: map[int32]int64{zktest.OpCreate2: 200, zktest.OpDelete: 200, zktest.OpGetChildren2: 200},
		Server:   &serverCounters{Fsyncs: 401, ClientWrites: 402, Txns: 402}}
	d.counts[key{zkrecipesName, idMultiContTx}] = countResult{Per: 200, PerWhat: "acquisition",
		Requests: map[int32]int64{zktest.OpMulti: 400, zktest.OpGetChildren2: 900, zktest.OpGetData: 300},
		Server:   &serverCounters{Fsyncs: 150, ClientWrites: 432, Txns: 435}}
	d.counts[key{zkrecipesName, idMultiContSeq}] = countResult{Per: 100, PerWhat: "acquisition",
		Requests: map[int32]int64{zktest.OpCreate: 300, zktest.OpDelete: 300}, ServerErr: "mntr: refused"}
	var b strings.Builder
	if err := writeReport(&b, d); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	for _, want := range []string{
		"| m4-tx | **zkrecipes** transactional (whole run: no marks) | 6.00 | 2.00 | 2.02 | 2.02 | 1.00 |",
		"| m4-seq | Curator InterProcessMultiLock (whole run: no marks) | 12.00 | 8.00 | 8.04 | 8.02 | 1.00 |",
		"| mc-tx | **zkrecipes** transactional | 8.00 | 2.00 | 2.16 | 0.75 | 2.90 (3 of the server's own) |",
		"| mc-seq | **zkrecipes** sequential | 6.00 | 6.00 | – | – | – |",
		"| m4-tx | **zkrecipes** | acquisition | getChildren2 4.00, multi 2.00 | 0.00 | 2.02 | 2.02 |",
		"ZooKeeper groups commits",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
