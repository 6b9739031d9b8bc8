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
	// Server is the change of the server's write counters (mntr) over the scenario; nil when
	// they could not be read (ServerErr says why).
	Server    *serverCounters `json:",omitempty"`
	ServerErr string          `json:",omitempty"`
	// Writes is how many of the acquisitions were the writer's (s5), for figures per write.
	Writes int64 `json:",omitempty"`
	// First and End are the counts at an uncontended scenario's marks (count_first.go).
	First *markCounts `json:",omitempty"`
	End   *markCounts `json:",omitempty"`
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

// writeOps are the opcodes that are write transactions on the server (closeSession aside).
var writeOps = map[int32]bool{zktest.OpCreate: true, zktest.OpCreate2: true, zktest.OpCreateContainer: true,
	zktest.OpCreateTTL: true, zktest.OpDelete: true, zktest.OpSetData: true, zktest.OpSetACL: true,
	zktest.OpMulti: true, zktest.OpReconfig: true}

// lockWrites sums the write requests the proxy saw (a multi is one; session set-up and
// tear-down excluded).
func (c countResult) lockWrites() int64 {
	var n int64
	for op, v := range c.Requests {
		if writeOps[op] {
			n += v
		}
	}
	return n
}

// byOpcode renders the counts per op, e.g. "create2 1.00, getChildren2 2.00".
func (c countResult) byOpcode() string {
	var parts []string
	for op, v := range c.Requests {
		if op == zktest.OpCloseSession {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", zktest.OpName(op), c.perOp(v)))
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
	noted := false // the server's counters could not be read (noted once)
	for _, e := range ps {
		if e.raw || e.variant {
			continue
		}
		t0 := time.Now()
		for _, s := range d.plan.Count {
			if skipCount(e, s) {
				continue
			}
			sc := s.Scenario
			sc.Root = fmt.Sprintf("%s/count/%s/%s", base, slug(e.peer.Name()), s.ID)
			c := countWhole(ctx, e.peer, proxy, target, sc)
			if c.ServerErr != "" && !noted {
				noted = true
				d.notes = append(d.notes, "count pass: no write or fsync figures where the table shows –: mntr: "+c.ServerErr)
			}
			d.counts[key{e.peer.Name(), s.ID}] = c
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		fmt.Fprintf(log, "bench: count pass %-22s %6.1fs\n", e.peer.Name(), time.Since(t0).Seconds())
	}
	return nil
}

func isExtra(id string) bool { return id == idRW || id == idSem || id == idMulti }

// skipCount: the s scenarios are counted for the peers that run them (the sticky peer counts
// nothing else); the f and m scenarios are counted for the peers that run them (zkrecipes and
// Curator), and Curator's multi-lock only in the sequential mode (its program answers
// "unsupported" to the others: no JVM is started for that).
func skipCount(e peerEntry, s spec) bool {
	multi := s.Kind == harness.MultiUncontended || s.Kind == harness.MultiContended
	switch {
	case isSticky(s.ID):
		return e.sticky == stickyNone || stickyUnsupported(e.peer.Name(), s.ID)
	case e.sticky == stickyOnly:
		return true
	case !e.extra && (isExtra(s.ID) || multi):
		return true
	case multi && e.peer.Name() == curatorName:
		return s.Mode != harness.MultiSeq
	}
	return false
}

// countWhole counts everything the scenario sent, divided by every acquisition it made (a herd
// divides by the releases that handed the lock over: acquisitions - 1), and the server's
// fsyncs and write transactions over the scenario (mntr of addr, the server behind the proxy).
func countWhole(ctx context.Context, p harness.Peer, proxy *zktest.Proxy, addr string, sc harness.Scenario) countResult {
	before, serr := settledServerCounters(ctx, addr)
	proxy.ResetCounts()
	var c countResult
	markAt(&sc, proxy, addr, before, serr, &c)
	res, err := p.Run(ctx, proxy.Addr(), sc)
	c.Requests, c.Notifications, c.PerWhat = proxy.Requests(), proxy.Notifications(), "acquisition"
	if serr == nil {
		var after serverCounters
		if after, serr = settledServerCounters(ctx, addr); serr == nil {
			delta := after.sub(before)
			c.Server = &delta
		}
	}
	if serr != nil {
		c.ServerErr = serr.Error()
	}
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
		c.Per, c.Writes = res[0].TotalCycles, int64(res[0].Extra["writes_all"])
	}
	return c
}

// silentLogger drops go-zookeeper's log lines (closed sessions log "recv loop terminated").
type silentLogger struct{}

func (silentLogger) Printf(string, ...any) {}
