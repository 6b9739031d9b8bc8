package zkpeers

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// timedOp runs one operation and returns the part of it that is timed.
type timedOp func() (time.Duration, error)

// untimed times the whole of op.
func untimed(op func() error) timedOp {
	return func() (time.Duration, error) {
		t0 := time.Now()
		err := op()
		return time.Since(t0), err
	}
}

// deleteOp creates a node (not timed) and times its delete.
func deleteOp(c *zk.Conn, dir string) timedOp {
	return func() (time.Duration, error) {
		p, err := c.Create(dir+"/d-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		err = c.Delete(p, -1)
		return time.Since(t0), err
	}
}

// idleGap is how long the machine idles before each handoff (peer-bench.md §4: 20 ms).
const idleGap = 20 * time.Millisecond

// rawHandoff is the idle handoff floor (peer-bench.md §4): session a creates a node, session b
// sets a getData watch on it and a waiter blocks on the watch; after idleGap a deletes the node,
// the waiter wakes and lists the parent. Timed: from a's delete call to b's getChildren return.
func rawHandoff(ctx context.Context, a, b *zk.Conn, dir string, sc harness.Scenario) (harness.Result, error) {
	op := func() (time.Duration, error) {
		p, err := a.Create(dir+"/h-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
		if err != nil {
			return 0, err
		}
		_, _, ev, err := b.GetW(p)
		if err != nil {
			return 0, err
		}
		done := make(chan error, 1)
		go func() {
			e := <-ev
			if e.Type != zk.EventNodeDeleted {
				done <- fmt.Errorf("zkpeers: handoff watch: %v", e.Type)
				return
			}
			_, _, err := b.Children(dir)
			done <- err
		}()
		select {
		case <-time.After(idleGap): // the idle time is what is measured, not a synchronisation
		case <-ctx.Done():
		}
		t0 := time.Now()
		if err := a.Delete(p, -1); err != nil {
			return 0, err
		}
		select {
		case err := <-done:
			return time.Since(t0), err
		case <-time.After(30 * time.Second):
			return 0, fmt.Errorf("zkpeers: handoff waiter did not wake within 30 s")
		}
	}
	return rawLatency(ctx, op, sc)
}
