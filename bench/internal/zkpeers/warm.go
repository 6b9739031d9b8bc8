package zkpeers

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// WarmServer sends d of the requests a lock makes (an ephemeral sequential create, a listing,
// a getData and a delete) from sessions sessions on one directory under root, then removes the
// directory, and returns the cycles it ran. A freshly started server runs its request path
// interpreted until its JIT has compiled it: without this, the first peer of a run measures a
// slower server than the others (hand-offs 1.5–1.8× slower for the first few hundred, measured
// in session 21), and a driver run with one repetition always puts the same peer first.
func WarmServer(ctx context.Context, servers, root string, sessions int, d time.Duration) (int64, error) {
	if d <= 0 || sessions <= 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d+time.Minute) // a server that stops answering
	defer cancel()
	dir := path.Join(root, "server-warmup")
	conns := make([]*zk.Conn, 0, sessions)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range sessions {
		c, err := connect(ctx, servers)
		if err != nil {
			return 0, fmt.Errorf("zkpeers: server warm-up: %w", err)
		}
		conns = append(conns, c)
	}
	if err := ensurePath(conns[0], dir); err != nil {
		return 0, err
	}
	var cycles atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	deadline := time.Now().Add(d)
	for _, c := range conns {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if err := warmCycle(c, dir); err != nil {
					errs <- err
					return
				}
				cycles.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	err := errors.Join(<-errs, ctx.Err())
	if derr := conns[0].Delete(dir, -1); err == nil && derr != nil {
		err = fmt.Errorf("zkpeers: server warm-up: delete %s: %w", dir, derr)
	}
	return cycles.Load(), err
}

// warmCycle is one lock's requests: create, list, read a child, delete.
func warmCycle(c *zk.Conn, dir string) error {
	p, err := c.Create(dir+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		return fmt.Errorf("zkpeers: server warm-up: create: %w", err)
	}
	kids, _, err := c.Children(dir)
	if err != nil {
		return fmt.Errorf("zkpeers: server warm-up: list: %w", err)
	}
	if len(kids) > 0 {
		if _, _, err := c.Get(dir + "/" + kids[0]); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("zkpeers: server warm-up: read: %w", err)
		}
	}
	if err := c.Delete(p, -1); err != nil {
		return fmt.Errorf("zkpeers: server warm-up: delete: %w", err)
	}
	return nil
}
