package recipes

import (
	"context"
	"sync"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// go-zookeeper's requests block and cannot be cancelled, so a request under a context that can
// end runs on a goroutine beside its caller (framework: call). The acquire loop makes three or
// more requests in a row (the create's listing, the watch on the node ahead, the listing after
// the wake-up, and more), each then a goroutine's start and one more hand-off on the reply's way
// back: on a small machine the largest part of the client's CPU per contended acquisition beyond
// what go-zookeeper's zk.Lock spends (issue 27). Instead the whole loop runs on one goroutine of
// its own, its requests inline (framework.Inline), while the caller waits for it under ctx: one
// goroutine and one hand-off per acquire. ctx still ends the caller's wait at once; the loop sees
// it after the request in flight, cleans up as on any failure, and deletes a node that was
// granted after its caller left.

// acquireOff is acquire on a goroutine of its own, as above. A context that cannot end runs the
// loop on the caller's goroutine: its requests are inline already.
func (l *Lock) acquireOff(ctx context.Context, drv driver.Driver, try bool) (grant, error) {
	if ctx.Done() == nil {
		return l.acquire(ctx, drv, try)
	}
	type result struct {
		g   grant
		err error
	}
	done := make(chan result, 1)
	var handoff sync.Mutex
	abandoned := false
	go func() {
		g, err := l.acquire(framework.Inline(ctx), drv, try)
		handoff.Lock()
		left := abandoned
		if !left {
			done <- result{g, err}
		}
		handoff.Unlock()
		if left && err == nil {
			l.abandon(ctx, g.path) // ctx has ended: a guaranteed delete in the background
		}
	}()
	select {
	case r := <-done:
		return r.g, r.err
	case <-ctx.Done():
	}
	handoff.Lock()
	defer handoff.Unlock()
	select {
	case r := <-done: // it finished meanwhile: its result is ours to return
		return r.g, r.err
	default:
		abandoned = true
		return grant{}, ctx.Err()
	}
}
