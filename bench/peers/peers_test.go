package peers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/zktest"
)

var servers string

func TestMain(m *testing.M) {
	c, err := zktest.Launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	servers = c.ConnectString()
	base := runtime.NumGoroutine()
	code := m.Run()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if code == 0 && runtime.NumGoroutine() > base {
		fmt.Fprintf(os.Stderr, "leaked goroutines: %d > %d\n", runtime.NumGoroutine(), base)
		code = 1
	}
	c.Close()
	os.Exit(code)
}

func quick(kind, root string, sessions int) harness.Scenario {
	return harness.Scenario{Kind: kind, Root: root, Sessions: sessions, Warmup: 50 * time.Millisecond,
		Duration: 300 * time.Millisecond, WarmCycles: 10, Releases: 2}
}

// Every peer runs a quick uncontended scenario (the raw floor: a create+delete pair) against a
// real server and reports cycles; a kind it lacks comes back Unsupported, not as a failure.
func TestPeersQuickUncontended(t *testing.T) {
	tests := []struct {
		peer    harness.Peer
		kind    string
		missing func() error
	}{
		{zkpeers.RawPeer(), harness.RawPair, nil},
		{zkpeers.GoLockPeer(), harness.Uncontended, nil},
		{CuratorPeer(), harness.Uncontended, CuratorAvailable},
		{KazooPeer(), harness.Uncontended, KazooAvailable},
	}
	for i, tt := range tests {
		t.Run(tt.peer.Name(), func(t *testing.T) {
			if tt.missing != nil {
				if err := tt.missing(); err != nil {
					t.Skip(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			root := fmt.Sprintf("/benchtest/unc-%d", i)
			res, err := tt.peer.Run(ctx, servers, quick(tt.kind, root, 1), quick("no-such-kind", root, 1))
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 2 {
				t.Fatalf("got %d results, want 2: %+v", len(res), res)
			}
			r := res[0]
			if r.Error != "" || r.Unsupported || r.Cycles <= 0 || r.CyclesPerSec <= 0 || r.P50Ms <= 0 || r.P99Ms < r.P50Ms {
				t.Fatalf("bad result: %+v", r)
			}
			if r.Peer != tt.peer.Name() || r.Kind != tt.kind {
				t.Fatalf("result labelled %q/%q", r.Peer, r.Kind)
			}
			if !res[1].Unsupported {
				t.Fatalf("unknown kind not reported unsupported: %+v", res[1])
			}
		})
	}
}

// zk.Lock under contention and herd: the harness counts acquisitions, fairness and violations.
func TestGoLockContendedAndHerd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := zkpeers.GoLockPeer().Run(ctx, servers,
		quick(harness.Contended, "/benchtest/cont", 4), quick(harness.Herd, "/benchtest/herd", 4),
		quick(harness.RW, "/benchtest/rw", 2))
	if err != nil {
		t.Fatal(err)
	}
	c, h, rw := res[0], res[1], res[2]
	if c.Error != "" || c.Cycles <= 0 || c.Violations != 0 || c.MinPerClient <= 0 {
		t.Fatalf("contended: %+v", c)
	}
	if h.Error != "" || h.Cycles != 2 || h.HandoffP50Ms <= 0 {
		t.Fatalf("herd: %+v", h)
	}
	if !rw.Unsupported {
		t.Fatalf("zk.Lock has no rw lock, got %+v", rw)
	}
}

func TestRunRejectsBadScenario(t *testing.T) {
	_, err := harness.RunScenario(context.Background(), nil, servers, harness.Scenario{Kind: harness.Contended, Root: "rel"})
	if !errors.Is(err, harness.ErrBadScenario) {
		t.Fatalf("got %v, want ErrBadScenario", err)
	}
}

// The depth scenario in every peer: the marks arrive in order (filled, start, end) through the
// driver's Mark (over stdin/stdout for the process peers), every acquirer acquires once, the
// timed releases are measured and nobody holds beside the holder.
func TestDepthMarksEveryPeer(t *testing.T) {
	tests := []struct {
		peer    harness.Peer
		missing func() error
	}{
		{zkpeers.GoLockPeer(), nil},
		{CuratorPeer(), CuratorAvailable},
		{KazooPeer(), KazooAvailable},
	}
	for i, tt := range tests {
		t.Run(tt.peer.Name(), func(t *testing.T) {
			if tt.missing != nil {
				if err := tt.missing(); err != nil {
					t.Skip(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var marks []string
			sc := harness.Scenario{Kind: harness.Depth, Root: fmt.Sprintf("/benchtest/depth-%d", i), Sessions: 4,
				Waiters: 12, Releases: 5, Budget: 30 * time.Second,
				Mark: func(ctx context.Context, m string) { marks = append(marks, m) }}
			res, err := tt.peer.Run(ctx, servers, sc)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 {
				t.Fatalf("got %d results: %+v", len(res), res)
			}
			r := res[0]
			if r.Error != "" || r.Cycles != 5 || r.TotalCycles != 13 || r.Violations != 0 || r.HandoffP50Ms <= 0 ||
				r.P99Ms < r.HandoffP50Ms || r.DrainSeconds <= 0 || r.Extra["drained"] != 13 || r.Extra["fill_s"] <= 0 {
				t.Fatalf("bad result: %+v", r)
			}
			if fmt.Sprint(marks) != "[filled start end]" {
				t.Fatalf("marks %v, want [filled start end]", marks)
			}
		})
	}
}

// Curator's uncontended multi-lock marks "first" after its first cycle and "end" after its
// window, as the Go harness does, so the counting pass can leave the session's set-up out.
func TestCuratorMultiUncontendedMarks(t *testing.T) {
	if err := CuratorAvailable(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var marks []string
	sc := quick(harness.MultiUncontended, "/benchtest/multi-unc", 1)
	sc.Paths, sc.Mode, sc.WarmCycles = 2, harness.MultiSeq, 3
	sc.Mark = func(ctx context.Context, m string) { marks = append(marks, m) }
	res, err := CuratorPeer().Run(ctx, servers, sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Error != "" || res[0].Cycles <= 0 || res[0].TotalCycles != res[0].Cycles+3 {
		t.Fatalf("bad result: %+v", res)
	}
	if fmt.Sprint(marks) != "[first end]" {
		t.Fatalf("marks %v, want [first end]", marks)
	}
}

// The queue-limit probe acquires behind nodes that sort after its own, and fails, within its
// budget, when the lock directory holds a node it cannot parse (zk.Lock: a name without a
// sequence) — a failure is reported in the result, not as a hang.
func TestDepthLimitProbe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := zkpeers.Connect(ctx, servers)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dir := "/benchtest/limit/lock"
	if err := zkpeers.EnsurePath(conn, dir); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := conn.Create(fmt.Sprintf("%s/_c_%032x-lock-9%09d", dir, i, i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	sc := harness.Scenario{Kind: harness.DepthLimit, Root: "/benchtest/limit", Waiters: 20, Budget: 10 * time.Second}
	res, err := zkpeers.GoLockPeer().Run(ctx, servers, sc)
	if err != nil || len(res) != 1 || res[0].Error != "" || res[0].Cycles != 1 {
		t.Fatalf("behind 20 nodes: %v %+v", err, res)
	}
	if _, err := conn.Create(dir+"/not-a-lock-node", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	res, err = zkpeers.GoLockPeer().Run(ctx, servers, sc)
	if err != nil || len(res) != 1 || res[0].Error == "" {
		t.Fatalf("behind a bad node: %v %+v", err, res)
	}
}
