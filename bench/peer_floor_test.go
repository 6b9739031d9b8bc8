package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

func TestFloorAhead(t *testing.T) {
	tests := []struct {
		name     string
		children []string
		seq      int64
		want     string
	}{
		{"alone", []string{"_c_g-lock-0000000007"}, 7, ""},
		{"first of three", []string{"_c_b-lock-0000000009", "_c_a-lock-0000000003", "_c_c-lock-0000000005"}, 3, ""},
		{"the one just ahead, listed in any order", []string{"_c_b-lock-0000000009", "_c_a-lock-0000000003", "_c_c-lock-0000000005"}, 9, "_c_c-lock-0000000005"},
		{"a name without a sequence is no contender", []string{"stray", "lock-", "_c_a-lock-00000000x1", "_c_a-lock-0000000002"}, 4, "_c_a-lock-0000000002"},
		{"a later node is not ahead", []string{"_c_a-lock-0000000011"}, 10, ""},
		{"empty listing", nil, 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ahead(tc.children, tc.seq); got != tc.want {
				t.Fatalf("ahead(%q, %d) = %q, want %q", tc.children, tc.seq, got, tc.want)
			}
		})
	}
}

// The floor variants and the lean engine are diagnostic: never in the default plan, there when
// named.
func TestFloorPeersOnlyWhenNamed(t *testing.T) {
	for _, name := range []string{"framework-floor", "framework-floor-no-cancel", "lean-engine", "lean-engine-no-cancel"} {
		es := allPeers(map[string]bool{name: true})
		if len(es) != 1 || slug(es[0].peer.Name()) != name || !es[0].variant {
			t.Errorf("allPeers(%q) = %d entries, want the one variant", name, len(es))
		}
		if _, err := goPeer(name); err != nil {
			t.Errorf("goPeer(%q): %v", name, err)
		}
	}
	for _, e := range allPeers(nil) {
		if n := slug(e.peer.Name()); strings.HasPrefix(n, "framework-floor") || strings.HasPrefix(n, "lean-engine") {
			t.Errorf("the default plan runs %q", e.peer.Name())
		}
	}
}

// Both floor variants and the lean engine contend for one lock on a real server with mutual
// exclusion (the harness's holder counter) and make progress.
func TestFloorPeersContend(t *testing.T) {
	srv := zktest.Start(t)
	for _, p := range []harness.Peer{frameworkFloorPeer(false), frameworkFloorPeer(true), leanEnginePeer(true), leanEnginePeer(false)} {
		t.Run(slug(p.Name()), func(t *testing.T) {
			sc, err := pairScenario(idCont8)
			if err != nil {
				t.Fatal(err)
			}
			sc.Root = zktest.UniquePath(t, "/floor")
			sc.Warmup, sc.Duration = 50*time.Millisecond, 300*time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := p.Run(ctx, srv.Servers()[0], sc)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || res[0].Error != "" || res[0].Violations != 0 || res[0].Cycles == 0 {
				t.Fatalf("result %+v: want one run, no error, no violation, some cycles", res)
			}
		})
	}
}

func TestLeanScan(t *testing.T) {
	const ours = "_c_o-lock-0000000007"
	tests := []struct {
		name     string
		children []string
		prev     string
		mine     bool
	}{
		{"alone", []string{ours}, "", true},
		{"first", []string{"_c_b-lock-0000000009", ours}, "", true},
		{"the one just ahead, in any order", []string{"_c_a-lock-0000000003", ours, "_c_c-lock-0000000005", "_c_b-lock-0000000009"}, "_c_c-lock-0000000005", true},
		{"a name without a sequence is no contender", []string{"stray", "_c_a-lock-00000000x6", "_c_a-lock-0000000002", ours}, "_c_a-lock-0000000002", true},
		{"ours is gone", []string{"_c_a-lock-0000000003"}, "_c_a-lock-0000000003", false},
		{"empty listing", nil, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev, mine, size := leanScan(tc.children, ours, 7)
			want := 0
			for _, c := range tc.children {
				want += 4 + len(c)
			}
			if prev != tc.prev || mine != tc.mine || size != want {
				t.Fatalf("leanScan = %q, %v, %d; want %q, %v, %d", prev, mine, size, tc.prev, tc.mine, want)
			}
		})
	}
}
