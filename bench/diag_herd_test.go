package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestDiagHerd runs row d in process, the zkrecipes peer under the harness's cancellable
// context and under none, alternately, on a warmed server (ZKR_DIAG=1).
func TestDiagHerd(t *testing.T) {
	if os.Getenv("ZKR_DIAG") == "" {
		t.Skip("diagnostic: ZKR_DIAG=1")
	}
	srv := zktest.Start(t, zktest.WithForceSync(os.Getenv("ZKR_DIAG_SYNC") != ""), zktest.WithJVMFlags(serverJVMFlags...))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := zkpeers.WarmServer(ctx, srv.Servers()[0], "/warm", 8, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	peers := []harness.Peer{zkrecipesPeer(), zkrecipesNoCancelPeer()}
	if os.Getenv("ZKR_DIAG_ONLY") == "cancel" {
		peers = peers[:1]
	}
	for round := range 3 {
		for _, p := range peers {
			sc := harness.Scenario{Kind: harness.Herd, Sessions: 64, Releases: 60, Root: zktest.UniquePath(t, "/herd")}
			res, err := p.Run(ctx, srv.Servers()[0], sc)
			if err != nil || len(res) != 1 || res[0].Error != "" {
				t.Fatalf("%v %+v", err, res)
			}
			t.Logf("round %d %-22s p50 %.3f ms p99 %.3f ms cpu %.0f us", round, p.Name(), res[0].HandoffP50Ms, res[0].P99Ms, res[0].CPUUsPerOp)
		}
	}
}
