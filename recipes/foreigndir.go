package recipes

import (
	"context"
	"fmt"
	"sync"
)

// A driver that waits for the directory (a semaphore: WatchDir) decides from a listing alone, and
// never reads a child's stat: a persistent node with a valid lease name would count against the
// maximum for ever. So a contender about to wait for the directory, and only then, reads the stat
// of every child that counts (all but our own nodes), the requests in flight together, and fails
// with a ForeignNodeError naming the first child that is not ephemeral. A child found ephemeral is
// not read again while this contender waits and it stays in the listings (an ephemeral node
// never turns persistent; only a deliberate delete and re-create under the same name between two
// listings would escape), so a wake pays only for the children that came since. A child gone before its stat is read was released: it is no squatter.
// The uncontended path, which holds from the first listing, reads nothing.

// maxStatsInFlight bounds the stat requests one contender has in flight at once.
const maxStatsInFlight = 32

// foreignIn returns a ForeignNodeError for the first child of children, a listing of the lock
// directory, that is not ephemeral, else nil; or the error of a stat that failed.
func (c *contender) foreignIn(ctx context.Context, children []string) error {
	todo := c.unchecked(children)
	if len(todo) == 0 {
		return nil
	}
	errs := make([]error, len(todo))
	sem := make(chan struct{}, maxStatsInFlight)
	var wg sync.WaitGroup
	for i, name := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = c.statChild(ctx, name)
		}()
	}
	wg.Wait()
	for i, name := range todo {
		if errs[i] != nil {
			return errs[i]
		}
		c.ephemeral[name] = struct{}{}
	}
	return nil
}

// unchecked returns the children that count and are not known to be ephemeral, and forgets the
// known ones that left the listing, so the set never outgrows the directory.
func (c *contender) unchecked(children []string) []string {
	known := make(map[string]struct{}, len(children))
	var todo []string
	for _, name := range children {
		switch _, ok := c.ephemeral[name]; {
		case name == c.name || c.lock.ours(name):
		case ok:
			known[name] = struct{}{}
		default:
			todo = append(todo, name)
		}
	}
	c.ephemeral = known
	return todo
}

// statChild reads the stat of the child name: a ForeignNodeError when it is not ephemeral, nil
// when it is, or when it is gone (a lease released since the listing).
func (c *contender) statChild(ctx context.Context, name string) error {
	p := childPath(c.lock.path, name)
	st, err := c.lock.fw.Exists(ctx, p)
	if err != nil {
		return fmt.Errorf("%s: read the stat of %s: %w", c.path, p, err)
	}
	return c.lock.squatter(name, st)
}
