package zkpeers

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// RawPeer is the floor: plain go-zookeeper requests with no recipe. It runs the raw-* kinds;
// lock kinds report Unsupported.
func RawPeer() harness.Peer { return rawPeer{} }

type rawPeer struct{}

func (rawPeer) Name() string { return "raw floor" }

func (p rawPeer) Run(ctx context.Context, servers string, scenarios ...harness.Scenario) ([]harness.Result, error) {
	out := make([]harness.Result, 0, len(scenarios))
	for _, sc := range scenarios {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, err := runRaw(ctx, servers, sc)
		res.Peer, res.Kind = p.Name(), sc.Kind
		if err == harness.ErrUnsupported {
			res.Unsupported = true
		} else if err != nil {
			res.Error = err.Error()
		}
		out = append(out, res)
	}
	return out, nil
}

var acl = zk.WorldACL(zk.PermAll)

func runRaw(ctx context.Context, servers string, sc harness.Scenario) (harness.Result, error) {
	if err := sc.Validate(); err != nil {
		return harness.Result{}, err
	}
	var sessions int
	switch sc.Kind {
	case harness.RawPair, harness.RawCGCD, harness.RawGetChildren, harness.RawGetData, harness.RawThroughput,
		harness.RawDelete:
		sessions = 1
	case harness.RawHandoff:
		sessions = 2
	case harness.RawSessions:
		sessions = max(sc.Sessions, 1)
	default:
		return harness.Result{}, harness.ErrUnsupported
	}
	conns := make([]*zk.Conn, 0, sessions)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < sessions; i++ {
		c, err := connect(ctx, servers)
		if err != nil {
			return harness.Result{}, err
		}
		conns = append(conns, c)
	}
	dir := sc.Root + "/raw"
	if err := ensurePath(conns[0], dir); err != nil {
		return harness.Result{}, err
	}
	if sc.Kind == harness.RawThroughput || sc.Kind == harness.RawSessions {
		return rawThroughput(ctx, conns, dir, sc)
	}
	if sc.Kind == harness.RawHandoff {
		return rawHandoff(ctx, conns[0], conns[1], dir, sc)
	}
	if sc.Kind == harness.RawDelete {
		return rawLatency(ctx, deleteOp(conns[0], dir), sc)
	}
	op, err := rawOp(conns[0], dir, sc.Kind)
	if err != nil {
		return harness.Result{}, err
	}
	return rawLatency(ctx, untimed(op), sc)
}

// rawOp returns the single-op loop body for a latency kind.
func rawOp(c *zk.Conn, dir, kind string) (func() error, error) {
	pair := func(list bool) func() error {
		return func() error {
			p, err := c.Create(dir+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
			if err != nil {
				return err
			}
			if list {
				if _, _, err := c.Children(dir); err != nil {
					return err
				}
			}
			return c.Delete(p, -1)
		}
	}
	switch kind {
	case harness.RawPair:
		return pair(false), nil
	case harness.RawCGCD:
		return pair(true), nil
	case harness.RawGetChildren:
		if _, err := c.Create(dir+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
			return nil, err
		}
		return func() error { _, _, err := c.Children(dir); return err }, nil
	case harness.RawGetData:
		node := dir + "/data"
		if _, err := c.Create(node, []byte("eighteen-byte-data"), zk.FlagEphemeral, acl); err != nil && err != zk.ErrNodeExists {
			return nil, err
		}
		return func() error { _, _, err := c.Get(node); return err }, nil
	}
	return nil, harness.ErrUnsupported
}

// rawLatency runs op for the warm-up, then times each op in the window.
func rawLatency(ctx context.Context, op timedOp, sc harness.Scenario) (harness.Result, error) {
	for t0 := time.Now(); time.Since(t0) < sc.Warmup && ctx.Err() == nil; {
		if _, err := op(); err != nil {
			return harness.Result{}, err
		}
	}
	var lat []time.Duration
	start := time.Now()
	for time.Since(start) < sc.Duration && ctx.Err() == nil {
		d, err := op()
		if err != nil {
			return harness.Result{}, err
		}
		lat = append(lat, d)
	}
	secs := time.Since(start).Seconds()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(f float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[int(f*float64(len(lat)-1)+0.5)]) / 1e6
	}
	n := int64(len(lat))
	return harness.Result{Sessions: 1, Cycles: n, Seconds: secs, CyclesPerSec: float64(n) / secs,
		P50Ms: q(0.5), P99Ms: q(0.99)}, ctx.Err()
}

// rawThroughput: Sessions goroutines loop create+delete pairs, over one shared session
// (raw-throughput) or one session each (raw-sessions).
func rawThroughput(ctx context.Context, conns []*zk.Conn, dir string, sc harness.Scenario) (harness.Result, error) {
	n := max(sc.Sessions, 1)
	var count atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		op, _ := rawOp(conns[i%len(conns)], dir, harness.RawPair)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if err := op(); err != nil {
					errc <- err
					return
				}
				count.Add(1)
			}
		}()
	}
	wait := func(d time.Duration) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	wait(sc.Warmup)
	c0, t0 := count.Load(), time.Now()
	wait(sc.Duration)
	c1, secs := count.Load(), time.Since(t0).Seconds()
	stop.Store(true)
	wg.Wait()
	select {
	case err := <-errc:
		return harness.Result{}, fmt.Errorf("zkpeers: raw pair: %w", err)
	default:
	}
	return harness.Result{Sessions: n, Cycles: c1 - c0, Seconds: secs, CyclesPerSec: float64(c1-c0) / secs}, ctx.Err()
}
