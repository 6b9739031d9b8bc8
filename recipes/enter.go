package recipes

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sync/atomic"

	"github.com/zkrecipes/zkrecipes/framework"
)

// How a contender enters the queue (issue 27). framework.CreateAndList sends the listing right
// behind the create, so that both cost one round trip: an acquisition that finds the lock free
// (row a) is granted a round trip sooner. The price is paid in hand-offs between goroutines: the
// create runs on a warm goroutine of its own (a go-zookeeper call blocks its goroutine), the
// listing waits for the dialer to see the create written, and then for the create's result:
// about 2.5 goroutine wake-ups per acquisition (a futex wake of an idle P each, on a small
// machine), counted with go tool trace in docs/performance.md's session 13.
//
// A contender that is going to wait gains nothing from that round trip: it waits for the
// holder, not for its listing. So a lock whose last attempt in this process waited enters as
// zk.Lock does: the create, then the listing, on the burst's own goroutine, no hand-off; after
// an attempt granted from its first listing (or before any), it pipelines again. The requests
// are the same either way and so is what they prove (the listing is answered after the create,
// by the session that made it), so a wrong guess costs one round trip, never a property.

// pipelinedEntries counts entries that sent the listing behind the create (for tests:
// TestContendedEntryNotPipelined).
var pipelinedEntries atomic.Int64

// createListing creates our contender node with opts and lists its directory: pipelined
// (framework.CreateAndList) unless the lock's last attempt waited.
func (l *Lock) createListing(ctx context.Context, name string, data []byte, opts ...framework.CreateOption) (framework.CreateListing, error) {
	if !l.waited.Load() {
		pipelinedEntries.Add(1)
		return l.fw.CreateAndList(ctx, name, data, opts...)
	}
	created, sess, err := l.fw.CreateIn(ctx, name, data, opts...)
	if err != nil {
		return framework.CreateListing{}, err
	}
	cl := framework.CreateListing{Path: created, Session: sess}
	cl.Children, cl.Parent, err = l.fw.Children(ctx, path.Dir(created))
	if err == nil && !slices.Contains(cl.Children, path.Base(created)) {
		// Answered after the create by the session that made it: the node is gone (its session
		// expired, or someone deleted it). ownNodeGone marks it, and the loop queues again.
		err = fmt.Errorf("recipes: %s missing from its parent's listing right after its create: %w", created, framework.ErrNoNode)
	}
	if err != nil {
		cl.Children, cl.Parent = nil, nil
	}
	return cl, err
}

// noteEntry remembers whether the first burst of an attempt, t, ended on a wait: the lock's
// next entry then does not pipeline (createListing). A failure tells nothing.
func (l *Lock) noteEntry(t turn) {
	if t.err == nil {
		l.waited.Store(!t.held)
	}
}
