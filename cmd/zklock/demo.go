package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// demoConfig is what `zklock demo` runs.
type demoConfig struct {
	path    string
	workers int
	rounds  int
	work    time.Duration
	quiet   bool
}

// runDemo is `zklock demo`: without servers it starts a local ZooKeeper,
// and then also shows a lost lock (one worker's session is expired through
// a proxy in front of that server).
func runDemo(ctx context.Context, g *globals, args []string, std stdio) error {
	c, err := parseDemo(g, args)
	if err != nil {
		return helpOrUsage(err, "demo", std)
	}
	var local *zktest.Cluster
	if len(g.serverList()) > 0 { // said first: the README promises the scene
		fmt.Fprintln(std.out, "servers given (--servers or $ZK_SERVERS): the lost-lock scene is skipped, as it needs "+
			"a local server; run without them (unset ZK_SERVERS) to see it")
	}
	if len(g.serverList()) == 0 {
		fmt.Fprintln(std.out, "no --servers and no $ZK_SERVERS: starting a local ZooKeeper (zktest)...")
		if local, err = zktest.Launch(); err != nil {
			return withCode(exitFailure, fmt.Errorf("starting a local ZooKeeper: %w", err))
		}
		defer local.Close()
		g.servers = local.ConnectString()
		fmt.Fprintf(std.out, "local ZooKeeper on %s\n", g.servers)
	}
	d := &demo{cfg: c, g: g, io: std, fence: &fence{path: c.path + "-resource"}}
	d.stats.init(c.workers)
	if err := d.connectWorkers(ctx, local); err != nil {
		return err
	}
	defer d.close()
	if err := d.fence.ensure(ctx, d.workers[0].fw); err != nil {
		return err
	}
	err = d.run(ctx)
	d.summary()
	if err == nil {
		err = d.verdict()
	}
	return err
}

func parseDemo(g *globals, args []string) (demoConfig, error) {
	c := demoConfig{path: "/zkrecipes-demo/lock", workers: 4, rounds: 10, work: 20 * time.Millisecond}
	pos, err := parseInterleaved(demoFlags(g, &c), args)
	switch {
	case err != nil:
		return c, err
	case len(pos) > 0:
		return c, fmt.Errorf("unexpected arguments %q", pos)
	}
	return c, framework.ValidatePath(c.path)
}

// demoFlags is demo's FlagSet, filling c.
func demoFlags(g *globals, c *demoConfig) *flag.FlagSet {
	fs := g.flagSet("demo")
	fs.StringVar(&c.path, "path", c.path, "")
	fs.Var((*countFlag)(&c.workers), "workers", "")
	fs.Var((*countFlag)(&c.rounds), "rounds", "")
	fs.Var((*durationFlag)(&c.work), "work", "")
	fs.BoolVar(&c.quiet, "quiet", false, "")
	return fs
}

// demo is one run: its workers, the shared resource and the statistics.
type demo struct {
	cfg     demoConfig
	g       *globals
	io      stdio
	fence   *fence
	workers []*worker
	stats   demoStats
	// loss, when set, expires worker 0's session once, mid-hold.
	loss *lossScene
}

// connectWorkers gives each worker its own session. With a local server,
// worker 0 connects through a proxy so that its session can be expired.
func (d *demo) connectWorkers(ctx context.Context, local *zktest.Cluster) error {
	fmt.Fprintf(d.io.out, "connecting %d workers to %s, each with its own session\n", d.cfg.workers, d.g.servers)
	for i := 0; i < d.cfg.workers; i++ {
		g := *d.g
		if i == 0 && local != nil && d.cfg.workers > 1 {
			p, err := zktest.OpenProxy(local.Servers()[0])
			if err != nil {
				return err
			}
			d.loss = &lossScene{proxy: p, server: local.Servers()[0], expired: make(chan struct{})}
			g.servers = p.Addr()
		}
		quiet := stdio{out: d.io.out, err: discardUnlessVerbose(d.g.verbose, d.io.err), getenv: d.io.getenv}
		fw, err := g.connect(ctx, "demo", quiet)
		if err != nil {
			return err
		}
		d.workers = append(d.workers, &worker{id: i, fw: fw, d: d})
		// Connected is said here: a listener added after the connect may or may not see it.
		d.say("worker %d: connection %s (session 0x%x)", i, framework.Connected, fw.SessionID())
		fw.AddListener(func(s framework.ConnectionState) {
			if s != framework.Connected {
				d.say("worker %d: connection %s", i, s)
			}
		})
	}
	return nil
}

func (d *demo) close() {
	for _, w := range d.workers {
		w.fw.Close()
	}
	if d.loss != nil {
		d.loss.proxy.Close()
	}
}

// run starts the workers and waits for all of them.
func (d *demo) run(ctx context.Context) error {
	errs := make(chan error, len(d.workers))
	for _, w := range d.workers {
		go func() { errs <- w.run(ctx) }()
	}
	var first error
	for range d.workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// say prints a line unless --quiet.
func (d *demo) say(format string, args ...any) {
	if !d.cfg.quiet {
		d.stats.print(d.io.out, format, args...)
	}
}

// summary prints what happened; verdict fails the run if exclusion broke.
func (d *demo) summary() {
	s := &d.stats
	s.mu.Lock()
	defer s.mu.Unlock()
	out := d.io.out
	fmt.Fprintf(out, "\nsummary: %d workers x %d rounds on %s\n", d.cfg.workers, d.cfg.rounds, d.cfg.path)
	for i, n := range s.counts {
		fmt.Fprintf(out, "  worker %d: %d acquisitions\n", i, n)
	}
	fmt.Fprintf(out, "  most holders at once in this process: %d (must be 1)\n", s.maxHolders.Load())
	fmt.Fprintf(out, "  fenced resource %s: %d writes, %d overlapping holders detected (must be 0), %d stale writes refused\n",
		d.fence.path, d.fence.writes.Load(), d.fence.overlaps.Load(), d.fence.stale.Load())
	fmt.Fprintf(out, "  leases lost while held: %d\n", s.lost.Load())
	if h := s.medianHandoff(); h > 0 {
		fmt.Fprintf(out, "  median handoff (release -> next acquire): %v over %d handoffs\n", h, len(s.handoffs))
	}
}

func (d *demo) verdict() error {
	if d.stats.maxHolders.Load() > 1 || d.fence.overlaps.Load() > 0 {
		return errors.New("mutual exclusion was broken")
	}
	return nil
}

// discardUnlessVerbose hides the per-worker "connecting to" lines.
func discardUnlessVerbose(verbose bool, w io.Writer) io.Writer {
	if verbose {
		return w
	}
	return io.Discard
}

// lossScene expires one worker's session for real, once.
type lossScene struct {
	proxy   *zktest.Proxy
	server  string
	done    bool          // worker 0's own: the scene ran
	expired chan struct{} // closed once the session was expired (or worker 0 ended)
	once    sync.Once
}

// markExpired lets the other workers run their last round.
func (l *lossScene) markExpired() { l.once.Do(func() { close(l.expired) }) }

// expire ends the session the proxy's client holds, on the server itself.
func (l *lossScene) expire(ctx context.Context) error {
	id, passwd := l.proxy.Session()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return zktest.ExpireSession(ctx, l.server, id, passwd)
}

// pid is this process's id, to tell our workers from other demos'.
var pid = os.Getpid()
