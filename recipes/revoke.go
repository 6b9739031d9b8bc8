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
func Revoke(ctx context.Context, fw *framework.Framework, nodePath string) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	if fw == nil {
		return fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	_, err := fw.Set(ctx, nodePath, revokeMessage, -1)
	if err != nil && !errors.Is(err, framework.ErrNoNode) {
		return fmt.Errorf("recipes: revoke %s: %w", nodePath, err)
	}
	return nil
}

// watchRevocation keeps a data watch on the lease's own node and calls fn when the node's
// data becomes "__REVOKE__". It ends with the lease, or when the node is gone; any other
// failure (a partition that outlasted the retry policy, say) re-arms the watch, so that
// revocation never stops silently while the lease is held.
func watchRevocation(l *Lease, fn func(*Lease)) {
	ctx := l.Context()
	for ctx.Err() == nil {
		data, _, w, err := l.fw.GetW(ctx, l.path)
		switch {
		case errors.Is(err, framework.ErrNoNode), ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return
		case err != nil:
			l.fw.Logger().Debug("recipes: revocation watch failed; re-arming", "path", l.path, "err", err)
			continue
		case bytes.Equal(data, revokeMessage):
			fn(l)
			return
		}
		if _, err := w.Wait(ctx); err != nil && !errors.Is(err, framework.ErrSessionInterrupted) {
			return
		}
	}
}
