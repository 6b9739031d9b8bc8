package zkpeers

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// SessionTimeout is the session timeout every peer uses (peer-bench.md: 30 s for every client).
const SessionTimeout = 30 * time.Second

// connect opens a go-zookeeper session and waits (bounded by ctx) until it is established.
func connect(ctx context.Context, servers string) (*zk.Conn, error) {
	conn, ev, err := zk.Connect([]string{servers}, SessionTimeout, zk.WithLogInfo(false), zk.WithLogger(silentLogger{}))
	if err != nil {
		return nil, err
	}
	for {
		select {
		case e, ok := <-ev:
			if ok && e.State != zk.StateHasSession {
				continue
			}
			go func() {
				for range ev { // drained until Close closes it
				}
			}()
			if !ok {
				return nil, fmt.Errorf("zkpeers: connection closed while connecting")
			}
			return conn, nil
		case <-ctx.Done():
			conn.Close()
			return nil, ctx.Err()
		}
	}
}

// ensurePath creates path and its parents as persistent nodes, ignoring those that exist.
func ensurePath(conn *zk.Conn, path string) error {
	for i := 1; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			_, err := conn.Create(path[:i], nil, 0, zk.WorldACL(zk.PermAll))
			if err != nil && err != zk.ErrNodeExists {
				return fmt.Errorf("zkpeers: create %s: %w", path[:i], err)
			}
		}
	}
	return nil
}

// silentLogger drops go-zookeeper's log lines (closed sessions log "recv loop terminated").
type silentLogger struct{}

func (silentLogger) Printf(string, ...any) {}

// Connect opens a plain go-zookeeper session for the driver's own use (the queue-limit pass) and
// waits, bounded by ctx, until it is established.
func Connect(ctx context.Context, servers string) (*zk.Conn, error) { return connect(ctx, servers) }

// EnsurePath creates path and its parents as persistent nodes, ignoring those that exist.
func EnsurePath(conn *zk.Conn, path string) error { return ensurePath(conn, path) }
