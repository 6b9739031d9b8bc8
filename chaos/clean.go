package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// checkClean waits (up to 3 T) until no node is left under the run's lock
// paths and the servers' watch count is back to baseline; it reports what
// is left and returns the number of orphaned nodes.
func checkClean(ctx context.Context, e *Env, v *Verdict, baseline int) int {
	deadline := time.Now().Add(3 * e.T)
	var left []string
	watches := 0
	for {
		left = e.nodesUnder(ctx, e.Root+"/locks")
		watches = watchCount(ctx, e.Cluster)
		if len(left) == 0 && watches <= baseline || time.Now().After(deadline) {
			break
		}
		sleepCtx(ctx, 100*time.Millisecond)
	}
	for _, n := range left {
		v.add(CClean, "orphaned node %s", n)
	}
	if watches > baseline {
		v.add(CClean, "servers hold %d watches, %d before the run", watches, baseline)
	}
	return len(left)
}

// leftBehind waits (up to d) until no node is left under the run's lock paths, and returns
// those still there, each with its owner session.
func (e *Env) leftBehind(ctx context.Context, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		left := e.nodesUnder(ctx, e.Root+"/locks")
		if len(left) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return e.withOwners(ctx, left)
		}
		sleepCtx(ctx, 100*time.Millisecond)
	}
}

// withOwners appends to each node its owner session.
func (e *Env) withOwners(ctx context.Context, nodes []string) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if st, err := e.admin.Exists(rctx, n); err == nil && st != nil {
			out[i] = fmt.Sprintf("%s (session 0x%x)", n, st.EphemeralOwner)
		}
		cancel()
	}
	return out
}

// nodesUnder lists the leaf nodes below root (lock nodes: the directories
// are containers, reaped by the server).
func (e *Env) nodesUnder(ctx context.Context, root string) []string {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	kids, _, err := e.admin.Children(rctx, root)
	if errors.Is(err, framework.ErrNoNode) || err != nil {
		return nil
	}
	var out []string
	for _, k := range kids {
		p := path.Join(root, k)
		st, err := e.admin.Exists(rctx, p)
		if err != nil || st == nil {
			continue
		}
		if st.NumChildren == 0 && st.EphemeralOwner != 0 || st.NumChildren == 0 && isLockNode(k) {
			out = append(out, p)
			continue
		}
		out = append(out, e.nodesUnder(ctx, p)...)
	}
	return out
}

// isLockNode reports whether a name is a contender node (it has a protected
// prefix), as opposed to an empty directory awaiting the container reaper.
func isLockNode(name string) bool { return framework.IsProtected(name) }

// watchCount sums the watches of every running member (-1 is skipped).
func watchCount(ctx context.Context, c *zktest.Cluster) int {
	n := 0
	for i := range c.Size() {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		w, err := c.Member(i).WatchCount(wctx)
		cancel()
		if err == nil {
			n += w
		}
	}
	return n
}

func filepathTemp() string { return os.TempDir() }
