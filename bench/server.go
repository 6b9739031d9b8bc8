package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// serverJVMFlags: the server JVM of peer-bench.md (1 GiB heap, G1, full JIT), overriding
// zktest's small-test defaults (serial GC, C1 only, 256 MiB).
var serverJVMFlags = []string{"-Xms1g", "-Xmx1g", "-XX:-UseSerialGC", "-XX:+UseG1GC", "-XX:TieredStopAtLevel=4"}

// server is the ZooKeeper the run measures: launched here through zktest, or ZK_SERVERS.
type server struct {
	connect string // connect string given to every peer
	first   string // the server the counting proxy fronts and four-letter words go to
	config  []string
	close   func()
}

// startServer launches a standalone ZooKeeper with forceSync=yes unless servers is set.
func startServer(ctx context.Context, servers string) (*server, error) {
	if servers != "" {
		first, _, _ := strings.Cut(servers, ",")
		cfg := append([]string{"external ensemble (ZK_SERVERS=" + servers + "): forceSync not known to the driver"},
			confLines(ctx, first)...)
		return &server{connect: servers, first: first, config: cfg, close: func() {}}, nil
	}
	c, err := zktest.Launch(zktest.WithForceSync(true), zktest.WithTickTime(2*time.Second),
		zktest.WithSessionTimeouts(4*time.Second, 40*time.Second),
		zktest.WithContainerCheckInterval(time.Minute), zktest.WithJVMFlags(serverJVMFlags...),
		zktest.WithStartTimeout(60*time.Second))
	if err != nil {
		return nil, fmt.Errorf("bench: start ZooKeeper: %w", err)
	}
	addr := c.Member(0).Addr()
	cfg := []string{"standalone, started by zktest.Launch for this run on 127.0.0.1, fresh temporary dataDir",
		"forceSync=yes", "znode.container.checkIntervalMs=60000 (ZooKeeper's default)",
		"server JVM flags (after zktest's): " + strings.Join(serverJVMFlags, " ")}
	cfg = append(cfg, confLines(ctx, addr)...)
	return &server{connect: c.ConnectString(), first: addr, config: cfg, close: func() {
		if err := c.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "bench: stop ZooKeeper:", err)
		}
	}}, nil
}

// confLines is the server's "conf" answer, without per-run paths and ports.
func confLines(ctx context.Context, addr string) []string {
	out, err := zktest.FourLetter(ctx, addr, "conf")
	if err != nil {
		return []string{"conf: " + err.Error()}
	}
	skip := map[string]bool{"dataDir": true, "dataLogDir": true, "clientPort": true, "secureClientPort": true,
		"clientPortAddress": true, "serverId": true, "membership": true}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		k, _, ok := strings.Cut(strings.TrimSpace(l), "=")
		if ok && !skip[k] {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	sort.Strings(lines)
	return lines
}
