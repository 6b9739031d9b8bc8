package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// demoConfig is what `zklock demo` runs.
type demoConfig struct {
	servers string
	path    string
	workers int
	rounds  int
	work    time.Duration
	quiet   bool
}

// runDemo parses the demo's flags and runs it, writing to out.
func runDemo(ctx context.Context, args []string, out io.Writer, env func(string) string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(out)
	var c demoConfig
	fs.StringVar(&c.servers, "servers", env("ZK_SERVERS"), "ZooKeeper servers, comma separated (default $ZK_SERVERS; empty: start a local one)")
	fs.StringVar(&c.path, "path", "/zkrecipes-demo/lock", "lock path")
	fs.IntVar(&c.workers, "workers", 4, "contending workers, each with its own session")
	fs.IntVar(&c.rounds, "rounds", 10, "acquisitions per worker")
	fs.DurationVar(&c.work, "work", 20*time.Millisecond, "longest critical section (random up to this)")
	fs.BoolVar(&c.quiet, "quiet", false, "print only the summary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.workers < 1 || c.rounds < 1 || c.work < 0 {
		return fmt.Errorf("demo: -workers and -rounds must be at least 1 and -work not negative")
	}
	servers := splitServers(c.servers)
	if len(servers) == 0 {
		fmt.Fprintln(out, "ZK_SERVERS is not set: starting a local ZooKeeper (zktest)...")
		zk, err := zktest.Launch()
		if err != nil {
			return err
		}
		defer zk.Close()
		servers = zk.Servers()
		fmt.Fprintf(out, "local ZooKeeper on %s\n", strings.Join(servers, ","))
	}
	return demo(ctx, c, servers, out)
}

func splitServers(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// demoStats is what the workers share: a holder counter that must never pass
// one, per-worker counts, and handoff latencies.
type demoStats struct {
	holders, maxHolders atomic.Int32
	lastRelease         atomic.Int64 // unix nanos of the last release
	mu                  sync.Mutex
	handoffs            []time.Duration
	counts              []int
	out                 io.Writer
	quiet               bool
}

func demo(ctx context.Context, c demoConfig, servers []string, out io.Writer) error {
	st := &demoStats{counts: make([]int, c.workers), out: out, quiet: c.quiet}
	fws := make([]*framework.Framework, c.workers)
	for i := range fws {
		fw, err := framework.New(servers, framework.WithSessionTimeout(10*time.Second))
		if err != nil {
			return err
		}
		defer fw.Close()
		fw.AddListener(func(s framework.ConnectionState) { st.say("worker %d: connection %s", i, s) })
		if err := fw.WaitConnected(ctx); err != nil {
			return err
		}
		fws[i] = fw
	}
	errs := make(chan error, c.workers)
	for i, fw := range fws {
		go func() { errs <- st.worker(ctx, i, fw, c) }()
	}
	var first error
	for range fws {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	st.summary(c)
	return first
}

func (st *demoStats) worker(ctx context.Context, id int, fw *framework.Framework, c demoConfig) error {
	m, err := recipes.NewMutex(fw, c.path, recipes.WithNodeData([]byte(fmt.Sprintf("worker-%d", id))))
	if err != nil {
		return err
	}
	for r := 0; r < c.rounds; r++ {
		lease, err := m.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("worker %d: %w", id, err)
		}
		st.acquired(id, lease)
		if c.work > 0 {
			select {
			case <-time.After(rand.N(c.work)):
			case <-lease.Done():
				st.say("worker %d: lock may be lost: %v", id, lease.Err())
			}
		}
		st.holders.Add(-1)
		st.lastRelease.Store(time.Now().UnixNano())
		if err := lease.Release(ctx); err != nil {
			return fmt.Errorf("worker %d: %w", id, err)
		}
	}
	return nil
}

func (st *demoStats) acquired(id int, lease *recipes.Lease) {
	n := st.holders.Add(1)
	for old := st.maxHolders.Load(); n > old && !st.maxHolders.CompareAndSwap(old, n); old = st.maxHolders.Load() {
	}
	var handoff time.Duration
	if last := st.lastRelease.Load(); last != 0 {
		handoff = time.Since(time.Unix(0, last))
	}
	st.mu.Lock()
	st.counts[id]++
	if handoff > 0 {
		st.handoffs = append(st.handoffs, handoff)
	}
	st.mu.Unlock()
	token, _ := lease.Token(context.Background())
	st.say("worker %d holds %s  token=%d  holders=%d", id, lease.Path(), token, n)
}

func (st *demoStats) say(format string, args ...any) {
	if st.quiet {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	fmt.Fprintf(st.out, format+"\n", args...)
}

func (st *demoStats) summary(c demoConfig) {
	st.mu.Lock()
	defer st.mu.Unlock()
	fmt.Fprintf(st.out, "\nsummary: %d workers x %d rounds on %s\n", c.workers, c.rounds, c.path)
	for i, n := range st.counts {
		fmt.Fprintf(st.out, "  worker %d: %d acquisitions\n", i, n)
	}
	fmt.Fprintf(st.out, "  most holders at once: %d (must be 1)\n", st.maxHolders.Load())
	if len(st.handoffs) > 0 {
		slices.Sort(st.handoffs)
		fmt.Fprintf(st.out, "  median handoff (release -> next acquire): %v over %d handoffs\n",
			st.handoffs[len(st.handoffs)/2].Round(time.Microsecond), len(st.handoffs))
	}
}
