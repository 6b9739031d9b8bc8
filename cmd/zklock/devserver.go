package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// devServerOptions is what `zklock dev-server` starts.
type devServerOptions struct {
	port     int // first client port; 0: a free one
	ensemble int // servers
}

// maxDevEnsemble bounds --ensemble: each server is a JVM of up to 256 MB of heap.
const maxDevEnsemble = 7

// runDevServer is `zklock dev-server`: it starts a throwaway ZooKeeper (zktest, as curator-test's
// TestingServer), prints its connect string as the first line of stdout, and serves until
// SIGINT, SIGTERM or SIGHUP; then it stops the servers and removes their data dir.
func runDevServer(ctx context.Context, g *globals, args []string, std stdio) error {
	o, err := parseDevServer(g, args)
	if err != nil {
		return helpOrUsage(err, "dev-server", std)
	}
	var opts []zktest.Option
	if o.port > 0 {
		opts = append(opts, zktest.WithClientPort(o.port))
	}
	c, err := zktest.LaunchEnsemble(o.ensemble, opts...)
	if err != nil {
		return withCode(exitFailure, fmt.Errorf("starting ZooKeeper: %w", err))
	}
	defer c.Close()
	fmt.Fprintf(std.err, "zklock: development ZooKeeper (%d server%s) on %s\n", c.Size(), plural(c.Size()), c.ConnectString())
	fmt.Fprintf(std.err, "zklock: data dir: %s\n", c.Dir())
	fmt.Fprintf(std.err, "zklock: logs: %s\n", strings.Join(memberLogs(c), " "))
	fmt.Fprintln(std.err, "zklock: stop with Ctrl-C (or SIGTERM); the data dir is then removed")
	fmt.Fprintln(std.out, c.ConnectString())
	<-ctx.Done()
	fmt.Fprintln(std.err, "zklock: stopping ZooKeeper")
	if err := c.Close(); err != nil {
		return withCode(exitFailure, fmt.Errorf("stopping ZooKeeper: %w", err))
	}
	return nil
}

func parseDevServer(g *globals, args []string) (devServerOptions, error) {
	o := devServerOptions{ensemble: 1}
	pos, err := parseInterleaved(devServerFlags(g, &o), args)
	switch {
	case err != nil:
		return o, err
	case len(pos) > 0:
		return o, fmt.Errorf("unexpected arguments %q", pos)
	case o.ensemble < 1 || o.ensemble > maxDevEnsemble:
		return o, fmt.Errorf("--ensemble %d: want 1 to %d servers", o.ensemble, maxDevEnsemble)
	case o.port < 0 || o.port+o.ensemble-1 > 65535:
		return o, fmt.Errorf("--port %d: want a TCP port (0: a free one)", o.port)
	}
	return o, nil
}

// devServerFlags is dev-server's FlagSet, filling o.
func devServerFlags(g *globals, o *devServerOptions) *flag.FlagSet {
	fs := g.flagSet("dev-server")
	fs.IntVar(&o.port, "port", o.port, "")
	fs.IntVar(&o.ensemble, "ensemble", o.ensemble, "")
	return fs
}

func memberLogs(c *zktest.Cluster) []string {
	logs := make([]string, c.Size())
	for i := range logs {
		logs[i] = c.Member(i).LogPath()
	}
	return logs
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

const devServerUsage = `Usage: zklock dev-server [--port N] [--ensemble N]

Starts a throwaway ZooKeeper for development and tests, as Curator's
TestingServer does: one server (or an ensemble) on 127.0.0.1, in a temporary
data dir, with a short tickTime (sessions from 200ms allowed) and empty
container nodes reaped within a second. The first line of stdout is the
connect string, so that scripts can read it; the rest goes to stderr. It runs
until SIGINT, SIGTERM or SIGHUP, then stops the servers and removes the data
dir and the logs. Killed with SIGKILL, its servers die with it (the kernel
kills them) but the data dir, under $TMPDIR, is left.

Needs Debian's zookeeper package (ZooKeeper 3.8 and a JRE): apt-get install
zookeeper. Not for production: nothing is kept.

Flags:
  --port N       serve clients on port N (the ensemble's servers on N, N+1, ...);
                 default: a free port
  --ensemble N   start an ensemble of N servers (default 1; 3 is typical)

Examples:
  zklock dev-server                              # then, in another terminal:
  ZK_SERVERS=127.0.0.1:PORT zklock holders /locks/backup
  zklock dev-server --port 2181 --ensemble 3

  # in a script: start it in the background and read the first line
  zklock dev-server >zk.addr & pid=$!
  until [ -s zk.addr ]; do sleep 0.1; done
  export ZK_SERVERS=$(head -n 1 zk.addr)
  ...
  kill $pid; wait $pid
`
