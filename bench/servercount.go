package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// The mntr keys the counting pass reads (ZooKeeper 3.8; checked against the server's answers
// to known workloads: reads, creates, multis, failing creates, concurrent creates, sessions,
// container reaping).
const (
	// mntrFsyncs counts the fsyncs of the transaction log: FileTxnLog.commit adds one sample
	// to the fsync time summary per fsync, and only when forceSync=yes.
	mntrFsyncs = "zk_cnt_fsynctime"
	// mntrClientWrites counts the write transactions of client connections (a multi is one;
	// a write that fails, e.g. NodeExists, is one too; createSession and closeSession are
	// writes): the update latency summary takes one sample per such request.
	mntrClientWrites = "zk_cnt_updatelatency"
	// mntrTxns counts every transaction the server applied, its own included (the container
	// reaper's deletes, session expiry): the propagation latency summary takes one sample per
	// transaction, whatever its origin. (Not zk_sum_sync_processor_batch_size: a flush batch also
	// holds the reads queued behind its writes.)
	mntrTxns = "zk_cnt_propagation_latency"
)

// serverCounters are the server's cumulative write counters at one moment, or (after sub) over
// one counting scenario.
type serverCounters struct {
	Fsyncs       int64 `json:"fsyncs"`
	ClientWrites int64 `json:"client_writes"`
	Txns         int64 `json:"transactions"`
}

// errNoCounters: the mntr answer lacks the keys (not whitelisted, or another server version).
var errNoCounters = errors.New("bench: mntr has no fsync and write counters")

// parseServerCounters reads the three counters from an mntr answer ("key\tvalue" lines; the
// summaries' counts may be printed as integers or as floats).
func parseServerCounters(mntr string) (serverCounters, error) {
	var c serverCounters
	fields := map[string]*int64{mntrFsyncs: &c.Fsyncs, mntrClientWrites: &c.ClientWrites, mntrTxns: &c.Txns}
	found := 0
	for _, l := range strings.Split(mntr, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "\t")
		p, want := fields[strings.TrimSpace(k)]
		if !ok || !want {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return serverCounters{}, fmt.Errorf("%w: %s = %q", errNoCounters, k, v)
		}
		*p = int64(n)
		found++
	}
	if found != len(fields) {
		return serverCounters{}, errNoCounters
	}
	return c, nil
}

// sub is the change from b to c.
func (c serverCounters) sub(b serverCounters) serverCounters {
	return serverCounters{Fsyncs: c.Fsyncs - b.Fsyncs, ClientWrites: c.ClientWrites - b.ClientWrites, Txns: c.Txns - b.Txns}
}

// serverOwn is the transactions the server logged on its own account (container reaping,
// session expiry) over the span: its fsyncs may be among the counted ones.
func (c serverCounters) serverOwn() int64 { return max(c.Txns-c.ClientWrites, 0) }

// perFsync is how many logged transactions one fsync covered on average (group commit); ok is
// false without an fsync (forceSync=no, or no write).
func (c serverCounters) perFsync() (float64, bool) {
	if c.Fsyncs <= 0 {
		return 0, false
	}
	return float64(c.Txns) / float64(c.Fsyncs), true
}

// readServerCounters asks the server at addr for its counters.
func readServerCounters(ctx context.Context, addr string) (serverCounters, error) {
	out, err := zktest.FourLetter(ctx, addr, "mntr")
	if err != nil {
		return serverCounters{}, err
	}
	return parseServerCounters(out)
}

// settledServerCounters reads the counters until two reads 50 ms apart agree (bounded by 1 s):
// a client may return from closing its sessions before the server has logged the closeSession.
func settledServerCounters(ctx context.Context, addr string) (serverCounters, error) {
	prev, err := readServerCounters(ctx, addr)
	for deadline := time.Now().Add(time.Second); err == nil && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond) // the server's log lags the client's close by a flush
		var cur serverCounters
		if cur, err = readServerCounters(ctx, addr); err == nil && cur == prev {
			return cur, nil
		}
		prev = cur
	}
	return prev, err
}
