package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// serverProbe measures the server beside one depth scenario, at the marks the scenario calls:
// at "filled" it waits for the watches to settle and counts them; between "start" and "end" (the
// timed single releases) it counts the watch notifications the server fired and the bytes it sent.
// The same measurements apply to every peer, in this process or not.
type serverProbe struct {
	addr    string
	waiters int
	settle  time.Duration // bound on waiting for the watches to settle
	heapOut string        // write a heap profile here at "filled" ("" = none; in-process peers only)

	path string // the lock directory, looked at if the peer is killed

	mu            sync.Mutex
	queuedAtKill  int
	watches       int
	start, end    serverSnap
	started, done bool
}

// serverSnap is the server's cumulative counters at one moment.
type serverSnap struct {
	fired   int64 // watches fired (mntr zk_sum_node_*_watch_count)
	sent    int64 // bytes the server sent on its client connections (-1 unknown)
	packets int64 // mntr zk_packets_sent
}

func newServerProbe(addr, path string, waiters int, settle time.Duration, heapOut string) *serverProbe {
	return &serverProbe{addr: addr, path: path, waiters: waiters, settle: settle, heapOut: heapOut, watches: -1, queuedAtKill: -1}
}

// mark implements harness.Scenario.Mark.
func (p *serverProbe) mark(ctx context.Context, m string) {
	switch m {
	case "filled":
		w := harness.WaitWatchesSettled(ctx, p.addr, p.waiters, p.settle)
		if p.heapOut != "" {
			writeHeapProfile(p.heapOut)
		}
		p.mu.Lock()
		p.watches = w
		p.mu.Unlock()
	case "start":
		s := snapServer(ctx, p.addr, true)
		p.mu.Lock()
		p.start, p.started = s, true
		p.mu.Unlock()
	case "killed":
		n := queueLength(ctx, p.addr, p.path)
		p.mu.Lock()
		p.queuedAtKill = n
		p.mu.Unlock()
	case "end":
		s := snapServer(ctx, p.addr, false)
		p.mu.Lock()
		p.end, p.done = s, true
		p.mu.Unlock()
	}
}

// fill adds the probe's figures to a depth result (per measured release: r.Cycles).
func (p *serverProbe) fill(r *harness.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Extra == nil {
		r.Extra = map[string]float64{}
	}
	if p.watches >= 0 {
		r.Extra["server_watches"] = float64(p.watches)
	}
	if p.queuedAtKill >= 0 {
		r.Error += fmt.Sprintf("; %d of %d lock nodes queued at the kill", p.queuedAtKill, p.waiters+1)
	}
	if !p.started || !p.done || r.Cycles <= 0 {
		return
	}
	k := float64(r.Cycles)
	r.Extra["notifications_per_release"] = float64(p.end.fired-p.start.fired) / k
	if p.start.sent >= 0 && p.end.sent >= 0 {
		r.Extra["bytes_per_handoff"] = float64(p.end.sent-p.start.sent) / k
	}
	r.Extra["server_packets_per_handoff"] = float64(p.end.packets-p.start.packets-1) / k // -1: the mntr reply
}

// snapServer reads the counters. The order keeps the four-letter-word connection out of the
// byte count: at the start mntr runs first (its connection is closed when ss runs), at the end last.
func snapServer(ctx context.Context, addr string, mntrFirst bool) serverSnap {
	var s serverSnap
	readMntr := func() {
		out, err := zktest.FourLetter(ctx, addr, "mntr")
		if err != nil {
			return
		}
		for _, l := range strings.Split(out, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(l), "\t")
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if !ok || err != nil {
				continue
			}
			switch {
			case k == "zk_packets_sent":
				s.packets = int64(n)
			case strings.HasPrefix(k, "zk_sum_node_") && strings.HasSuffix(k, "_watch_count"):
				s.fired += int64(n)
			}
		}
	}
	if mntrFirst {
		readMntr()
		time.Sleep(20 * time.Millisecond) // let the four-letter-word socket leave ESTABLISHED
		s.sent = serverBytesSent(ctx, addr)
	} else {
		s.sent = serverBytesSent(ctx, addr)
		readMntr()
	}
	return s
}

var bytesSentRe = regexp.MustCompile(`bytes_sent:(\d+)`)

// serverBytesSent sums bytes_sent (kernel TCP info, via ss) over the established connections
// whose local port is the server's: what the server has sent to its clients. -1 if unknown (ss
// missing, or a server on another machine).
func serverBytesSent(ctx context.Context, addr string) int64 {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return -1
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ss", "-tinH", "state", "established", "( sport = :"+port+" )").Output()
	if err != nil {
		return -1
	}
	ms := bytesSentRe.FindAllSubmatch(out, -1)
	if len(ms) == 0 {
		return -1
	}
	var n int64
	for _, m := range ms {
		v, _ := strconv.ParseInt(string(m[1]), 10, 64)
		n += v
	}
	return n
}

// writeHeapProfile writes this process's heap profile (after a GC) to path; errors are ignored
// (a diagnostic).
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	runtime.GC()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
}

// queueLength is the number of children of path, from a stat on a fresh session (-1 on error).
func queueLength(ctx context.Context, addr, path string) int {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	conn, err := zkpeers.Connect(ctx, addr)
	if err != nil {
		return -1
	}
	defer conn.Close()
	ok, st, err := conn.Exists(path)
	if err != nil || !ok {
		return -1
	}
	return int(st.NumChildren)
}
