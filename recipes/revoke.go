package recipes

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
)

// revokeMessage is what Curator writes into a lock node to ask its holder to let go
// (LockInternals.REVOKE_MESSAGE).
var revokeMessage = []byte("__REVOKE__")

// Revoke asks the holder of the lock node at nodePath (from Participants) to release it, by
// writing "__REVOKE__" into the node, as Curator's Revoker does. It is cooperative: only a
// holder that made its lock revocable reacts. A node that is already gone is not an error.
//
// Revoke writes into contender nodes only: a path that CheckContender refuses (a lock's
// directory, say), or an existing node that is not ephemeral, is refused with an error
// wrapping ErrNotContender, and nothing is written. The write is conditional on the version
// Revoke checked, so it never lands on another node created at that path meanwhile.
func Revoke(ctx context.Context, fw *framework.Framework, nodePath string) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	if fw == nil {
		return fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if err := CheckContender(nodePath); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		err := revokeOnce(ctx, fw, nodePath)
		if !errors.Is(err, framework.ErrBadVersion) || attempt == revokeAttempts-1 {
			return err
		}
	}
}

// revokeAttempts bounds Revoke's check-and-write rounds when the node's data changes between
// the check and the write (a retried write that landed, say).
const revokeAttempts = 3

// revokeOnce checks that the node at nodePath is ephemeral (a contender's) and writes the
// revocation into it, conditional on the version it read.
func revokeOnce(ctx context.Context, fw *framework.Framework, nodePath string) error {
	st, err := fw.Exists(ctx, nodePath)
	switch {
	case err != nil:
		return fmt.Errorf("recipes: revoke %s: %w", nodePath, err)
	case st == nil:
		return nil
	case st.EphemeralOwner == 0:
		return fmt.Errorf("%w: %s: a persistent node, not a contender's (ephemeral) node", ErrNotContender, nodePath)
	}
	_, err = fw.Set(ctx, nodePath, revokeMessage, st.Version)
	switch {
	case err == nil, errors.Is(err, framework.ErrNoNode):
		return nil
	case errors.Is(err, framework.ErrBadVersion):
		return fmt.Errorf("recipes: revoke %s: the node changed while revoking: %w", nodePath, err)
	}
	return fmt.Errorf("recipes: revoke %s: %w", nodePath, err)
}

// watchRevocation keeps a data watch on the lease's own node and calls fn when the node's
// data becomes "__REVOKE__". It ends with the lease, or when the node is gone; any other
// failure (NoAuth once another client removed READ from the node, a partition that outlasted
// the retry policy) sets the watch again after the retry policy's delay, warning once that it
// cannot watch, so that revocation never stops silently, nor spins, while the lease is held.
func watchRevocation(l *Lease, fn func(*Lease)) {
	ctx := l.Context()
	rw := newRewatch(l.fw.Logger(), l.fw.RetryPolicy(), "the lease's node for revocation", l.path)
	for ctx.Err() == nil {
		data, _, w, err := l.fw.GetW(ctx, l.path)
		switch {
		case errors.Is(err, framework.ErrNoNode), ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return
		case err != nil:
			if !rw.failed(ctx, err) {
				return
			}
			continue
		case bytes.Equal(data, revokeMessage):
			l.node.slot.revoked() // a sticky lease's node must not be kept with the request in it
			fn(l)
			return
		}
		rw.ok()
		if _, err := w.Wait(ctx); err != nil && !errors.Is(err, framework.ErrSessionInterrupted) {
			return
		}
	}
}
