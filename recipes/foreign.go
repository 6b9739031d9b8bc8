package recipes

import (
	"context"
	"errors"
	"math"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// A foreign node is one no contender made (see ErrForeignNode). The acquire loop finds it with no
// request of its own: a name no lock knows from the listing it decides on, and a node that is not
// ephemeral from the stat that comes with the watch it sets on the node ahead (GetW). Only a
// TryAcquire that finds the lock busy asks for the stat of the node ahead, alongside the delete
// of its own node, so it waits for no extra round trip either.

// foreignError turns a driver's ForeignNodeError into ours, with the node's path, or returns nil.
func (l *Lock) foreignError(err error) error {
	var fe *driver.ForeignNodeError
	if !errors.As(err, &fe) {
		return nil
	}
	return &ForeignNodeError{Path: childPath(l.path, fe.Name), Reason: fe.Reason}
}

// squatter returns a ForeignNodeError when st, the stat of the child name, is not an ephemeral
// node's (a persistent, container or TTL node lives on after any session), else nil.
func (l *Lock) squatter(name string, st *framework.Stat) error {
	if st == nil || IsEphemeralOwner(st.EphemeralOwner) {
		return nil
	}
	return &ForeignNodeError{Path: childPath(l.path, name),
		Reason: "not ephemeral (a squatter): no session owns it, so it would stand in the queue for ever"}
}

// IsEphemeralOwner reports whether owner, a Stat's ephemeralOwner, is a session's, as a
// contender's node must be: 0 is a persistent node, math.MinInt64 a container, a top byte of
// 0xff a TTL node (ZooKeeper's EphemeralType). It does no I/O.
func IsEphemeralOwner(owner int64) bool {
	return owner != 0 && owner != math.MinInt64 && uint64(owner)>>56 != 0xff
}

// busyOrForeign is the end of a TryAcquire that found the lock busy (err, a *LockedError naming
// the node ahead): it deletes our node (abandon) while it reads the stat of the node ahead, and
// returns a ForeignNodeError when that node is a squatter, else err. The read has the cleanup's
// bound (cleanupContext): a partition right after the listing must not hold the caller's busy
// answer up for the retry policy and the connection's timeout; an unread stat is just busy.
func (l *Lock) busyOrForeign(ctx context.Context, ourPath string, err error) error {
	return l.foreignAhead(ctx, err, func() { l.abandon(ctx, ourPath) })
}

// foreignAhead is busyOrForeign for any acquirer of l: abandon deletes what the acquirer queued
// (our one node, or a transactional multi-lock's whole set), and err's LockedError names the node
// ahead in l's directory. Any other error only abandons.
func (l *Lock) foreignAhead(ctx context.Context, err error, abandon func()) error {
	var le *LockedError
	if !errors.As(err, &le) || le.node == "" {
		abandon()
		return err
	}
	stat := make(chan *framework.Stat, 1)
	sctx, cancel := cleanupContext(ctx, l.fw) // the caller waits for it: a cleanup's bound, not ctx's
	defer cancel()
	go func() {
		st, serr := l.fw.Exists(sctx, childPath(l.path, le.node))
		if serr != nil {
			st = nil
		}
		stat <- st
	}()
	abandon()
	if ferr := l.squatter(le.node, <-stat); ferr != nil {
		return ferr
	}
	return err
}
