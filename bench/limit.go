package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
)

// idLimit is the queue-limit pass's scenario id (for -only).
const idLimit = "e-limit"

// limitStep is one probe of a peer behind n queued nodes.
type limitStep struct {
	N            int     `json:"n"`
	ListingBytes int     `json:"listing_bytes"` // the names in the listing, 4 + len(name) each
	OK           bool    `json:"ok"`
	AcquireMs    float64 `json:"acquire_ms,omitempty"`
	Err          string  `json:"error,omitempty"`
}

// limitBudget bounds each probe's acquire.
const limitBudget = 15 * time.Second

// dummyName is a node name shaped like the peer's own lock nodes whose sequence (9xxxxxxxxx)
// sorts after every node the peer creates, so the probe acquires at once if its listing arrives.
func dummyName(peer string, i int) string {
	switch peer {
	case goLockName: // go-zookeeper: "_c_" + 32 hex + "-lock-" + seq
		return fmt.Sprintf("_c_%032x-lock-9%09d", i, i)
	case kazooName: // kazoo: uuid4 hex + "__lock__" + seq
		return fmt.Sprintf("%032x__lock__9%09d", i, i)
	}
	// zkrecipes and Curator: protected "_c_" + UUID + "-lock-" + seq
	return fmt.Sprintf("_c_%08x-0000-4000-8000-%012x-lock-9%09d", i, i, i)
}

// limitPass finds, per lock peer, the queue length at which its listing breaks: the driver puts
// n nodes in the lock directory (n rising through steps) and the peer, in one session, must
// acquire behind them within limitBudget. The first failure ends that peer's steps.
func limitPass(ctx context.Context, d *runData, ps []peerEntry, servers, base string, log io.Writer) error {
	conn, err := zkpeers.Connect(ctx, servers)
	if err != nil {
		return err
	}
	defer conn.Close()
	d.limits = map[string][]limitStep{}
	for _, e := range ps {
		if !e.lockPasses() {
			continue
		}
		t0 := time.Now()
		root := fmt.Sprintf("%s/limit/%s", base, slug(e.peer.Name()))
		steps, err := probePeer(ctx, conn, e.peer, servers, root, d.plan.LimitSteps)
		d.limits[e.peer.Name()] = steps
		fmt.Fprintf(log, "bench: queue limit %-22s %6.1fs\n", e.peer.Name(), time.Since(t0).Seconds())
		if err != nil {
			return err
		}
	}
	return nil
}

// probePeer runs the steps for one peer and removes the nodes it created.
func probePeer(ctx context.Context, conn *zk.Conn, p harness.Peer, servers, root string, ns []int) ([]limitStep, error) {
	dir := root + "/lock"
	if err := zkpeers.EnsurePath(conn, dir); err != nil {
		return nil, err
	}
	defer removeNodes(conn, dir, p.Name(), ns)
	var out []limitStep
	made, bytes := 0, 0
	for _, n := range ns {
		for i := made; i < n; i++ {
			bytes += 4 + len(dummyName(p.Name(), i))
		}
		if err := createNodes(conn, dir, p.Name(), made, n); err != nil {
			return out, err
		}
		made = n
		sc := harness.Scenario{Kind: harness.DepthLimit, Root: root, Waiters: n, Budget: limitBudget}
		res, err := p.Run(ctx, servers, sc)
		st := limitStep{N: n, ListingBytes: bytes + 4 + len(dummyName(p.Name(), 0))}
		switch {
		case err != nil:
			st.Err = err.Error()
		case len(res) != 1:
			st.Err = "no result"
		case res[0].Error != "":
			st.Err = res[0].Error
		default:
			st.OK, st.AcquireMs = true, res[0].Extra["acquire_ms"]
		}
		out = append(out, st)
		if !st.OK || ctx.Err() != nil {
			break
		}
	}
	return out, ctx.Err()
}

// nodeBatch is how many creates or deletes go in one multi (well under the 1 MB request limit).
const nodeBatch = 500

// createNodes creates the peer-shaped nodes from..to-1 in dir, nodeBatch per multi.
func createNodes(conn *zk.Conn, dir, peer string, from, to int) error {
	for i := from; i < to; i += nodeBatch {
		var ops []any
		for j := i; j < min(i+nodeBatch, to); j++ {
			ops = append(ops, &zk.CreateRequest{Path: dir + "/" + dummyName(peer, j), Acl: zk.WorldACL(zk.PermAll)})
		}
		if _, err := conn.Multi(ops...); err != nil {
			return fmt.Errorf("bench: create queue nodes %d..%d in %s: %w", i, i+len(ops), dir, err)
		}
	}
	return nil
}

// removeNodes deletes every node createNodes may have made for the steps, nodeBatch per multi
// (best effort: the server is discarded after the run anyway).
func removeNodes(conn *zk.Conn, dir, peer string, ns []int) {
	if len(ns) == 0 {
		return
	}
	last := ns[len(ns)-1]
	for i := 0; i < last; i += nodeBatch {
		var ops []any
		for j := i; j < min(i+nodeBatch, last); j++ {
			ops = append(ops, &zk.DeleteRequest{Path: dir + "/" + dummyName(peer, j), Version: -1})
		}
		if _, err := conn.Multi(ops...); err != nil {
			return // a batch with a node never created fails as a whole: the rest were never made
		}
	}
}
