package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// countResult is one peer's requests by opcode and notifications in one counting scenario,
// with the number they are divided by.
type countResult struct {
	Requests      map[int32]int64
	Notifications int64
	Per           int64  // acquisitions (or, for depth, releases = deletes) the counts cover
	PerWhat       string // "acquisition" or "release"
	Err           string
}

// perOp is the count per acquisition (or release).
func (c countResult) perOp(n int64) float64 {
	if c.Per <= 0 {
		return 0
	}
	return float64(n) / float64(c.Per)
}

// lockRequests sums the requests a lock makes (session set-up and tear-down excluded).
func (c countResult) lockRequests() int64 {
	var n int64
	for op, v := range c.Requests {
		if op != zktest.OpCloseSession && op != zktest.OpSetWatches && op != zktest.OpSetWatches2 {
			n += v
		}
	}
	return n
}

var opNames = map[int32]string{
	zktest.OpCreate: "create", zktest.OpDelete: "delete", zktest.OpExists: "exists",
	zktest.OpGetData: "getData", zktest.OpSetData: "setData", zktest.OpGetChildren: "getChildren",
	zktest.OpSync: "sync", zktest.OpGetChildren2: "getChildren2", zktest.OpCheck: "check",
	zktest.OpMulti: "multi", zktest.OpCreate2: "create2", zktest.OpCreateContainer: "createContainer",
	zktest.OpRemoveWatches: "removeWatches", zktest.OpCheckWatches: "checkWatches",
	zktest.OpCloseSession: "closeSession", zktest.OpSetWatches: "setWatches",
	zktest.OpSetWatches2: "setWatches2", zktest.OpAddWatch: "addWatch", zktest.OpMultiRead: "multiRead",
}

// byOpcode renders the counts per op, e.g. "create2 1.00, getChildren2 2.00".
func (c countResult) byOpcode() string {
	var parts []string
	for op, v := range c.Requests {
		if op == zktest.OpCloseSession {
			continue
		}
		name, ok := opNames[op]
		if !ok {
			name = fmt.Sprintf("op%d", op)
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", name, c.perOp(v)))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// countPass runs the plan's counting scenarios once per lock peer through a decoding proxy in
// front of target. Timings of this pass are discarded: the proxy adds latency.
func countPass(ctx context.Context, d *runData, ps []peerEntry, target, base string, log io.Writer) error {
	proxy, err := zktest.OpenProxy(target)
	if err != nil {
		return err
	}
	defer proxy.Close()
	for _, e := range ps {
		if e.raw || e.variant {
			continue
		}
		t0 := time.Now()
		for _, s := range d.plan.Count {
			if !e.extra && isExtra(s.ID) {
				continue
			}
			sc := s.Scenario
			sc.Root = fmt.Sprintf("%s/count/%s/%s", base, slug(e.peer.Name()), s.ID)
			d.counts[key{e.peer.Name(), s.ID}] = countWhole(ctx, e.peer, proxy, sc)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		fmt.Fprintf(log, "bench: count pass %-22s %6.1fs\n", e.peer.Name(), time.Since(t0).Seconds())
	}
	return nil
}

func isExtra(id string) bool { return id == idRW || id == idSem || id == idMulti }

// countWhole counts everything the scenario sent, divided by every acquisition it made (a herd
// divides by the releases that handed the lock over: acquisitions - 1).
func countWhole(ctx context.Context, p harness.Peer, proxy *zktest.Proxy, sc harness.Scenario) countResult {
	proxy.ResetCounts()
	res, err := p.Run(ctx, proxy.Addr(), sc)
	c := countResult{Requests: proxy.Requests(), Notifications: proxy.Notifications(), PerWhat: "acquisition"}
	switch {
	case err != nil:
		c.Err = err.Error()
	case len(res) != 1:
		c.Err = "no result"
	case res[0].Unsupported:
		c.Err = "unsupported"
	case res[0].Error != "":
		c.Err = res[0].Error
	case sc.Kind == harness.Herd:
		c.Per, c.PerWhat = res[0].TotalCycles-1, "release"
	default:
		c.Per = res[0].TotalCycles
	}
	return c
}

// silentLogger drops go-zookeeper's log lines (closed sessions log "recv loop terminated").
type silentLogger struct{}

func (silentLogger) Printf(string, ...any) {}
