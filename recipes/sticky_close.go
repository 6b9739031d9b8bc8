package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Close ends the lock's caching (WithSticky): an idle node is deleted now, with a guaranteed
// delete bounded by ctx (if ctx ends first, the delete goes on in the background and the error
// says so), and a node held by a lease goes at that lease's Release. The lock stays usable:
// later leases are plain ones, whose Release deletes their node. It does nothing for a lock
// that is not sticky, and a second Close does nothing. Closing the framework also ends every
// idle node (with its session). Safe for concurrent use.
func (l *Lock) Close(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	c := l.sticky
	if c == nil {
		return nil
	}
	c.mu.Lock()
	c.closed = true
	s := c.slot
	if s == nil || s.state == slotHeld {
		c.mu.Unlock()
		return nil // nothing idle; a held slot ends at its release
	}
	c.end(s, false)
	c.mu.Unlock()
	if ctx.Err() != nil {
		l.fw.DeleteInBackground(s.path)
		return fmt.Errorf("recipes: close %s: the delete goes on in the background: %w", s.path, ctx.Err())
	}
	err := l.fw.Delete(ctx, s.path, framework.Guaranteed())
	switch {
	case err == nil, errors.Is(err, framework.ErrNoNode), errors.Is(err, framework.ErrClosed):
		return nil
	}
	return fmt.Errorf("recipes: close %s: %w", s.path, err)
}

// Close closes both halves (Lock.Close): their idle nodes are deleted, held ones go at their
// release, and the lock caches no more.
func (rw *InterProcessReadWriteLock) Close(ctx context.Context) error {
	return errors.Join(rw.read.Close(ctx), rw.write.Close(ctx))
}

// checkTxSticky refuses a sticky lock in a transactional multi-lock: its set is created and
// deleted in one transaction, while a cached node is kept or given up lock by lock, on each
// lock's own conflicts; a set kept whole would need every member idle and unwanted at once, and
// a local re-grant of the set would have to check every directory's watch: not built. A
// sequential multi-lock (NewMultiLock) of sticky locks caches each member.
func checkTxSticky(l *Lock) error {
	if l.sticky != nil {
		return fmt.Errorf("%w: %s: a sticky lock (WithSticky) cannot be part of a transactional multi-lock", ErrInvalidArgument, l.path)
	}
	return nil
}
