package recipes

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
)

// selfKind says how a lease of this process holds what an acquire waits behind. Reentrancy is
// by handle, never by goroutine (see Lease.Reenter), so such an acquire is never granted: the
// caller's own goroutine may hold that lease, or another goroutine that must still wait. It is
// only named: TryAcquire's LockedError says which lease and what to do instead, and a blocking
// Acquire warns once per Lock and kind.
type selfKind int

const (
	selfNone         selfKind = iota
	selfSame                  // a lease taken through the same Lock: re-enter it
	selfWriter                // the write lease of the same read-write lock, waited for by a read: Downgrade
	selfReader                // a read lease of the same read-write lock, waited for by a write: no upgrade
	selfWriterNoDown          // selfWriter of a lock without Downgrade (kazoo's): release the write first
	selfKinds
)

// selfHold is a lease of this process that an acquire waits behind: its node name and kind.
type selfHold struct {
	node string
	kind selfKind
}

// pairHalves makes r and w the two halves of one read-write lock, so that an acquire through
// one of them can tell that a lease of the other, in this process, is what it waits behind.
// downgrade says whether the lock has ReadLock().Downgrade (kazoo's has not).
func pairHalves(r, w *Lock, downgrade bool) {
	r.kin, r.kinKind = w, selfWriter
	if !downgrade {
		r.kinKind = selfWriterNoDown
	}
	w.kin, w.kinKind = r, selfReader
}

// selfHoldIn finds the lease of this process, if any, that an acquire through l waits behind,
// from the view v on which dec says to wait: the node dec names, when a lease of l holds it;
// else, for a half of a read-write lock, a lease of the other half that sorts before ours (a
// read waits for every writer before it, a write for every node before it). The scan runs only
// while the other half holds a lease in this process: otherwise it costs one map look-up, and v
// may be empty (Index -1: evaluate sorted nothing).
func (l *Lock) selfHoldIn(v driver.View, dec driver.Decision) selfHold {
	if l.ours(dec.WatchNode) {
		return selfHold{node: dec.WatchNode, kind: selfSame}
	}
	k := l.kin
	if k == nil || k.held.Load() == 0 || v.Index < 0 || v.Index > len(v.Sorted) {
		return selfHold{}
	}
	for _, name := range v.Sorted[:v.Index] {
		if k.ours(name) {
			return selfHold{node: name, kind: l.kinKind}
		}
	}
	return selfHold{}
}

// lockedError is TryAcquire's ErrLocked for lock path p when h (maybe none) holds it.
func (h selfHold) lockedError(p string) *LockedError {
	var reason string
	switch h.kind {
	case selfSame:
		reason = fmt.Sprintf("by a lease of this process, taken through this Lock (%s): re-enter it with Lease.Reenter", h.node)
	case selfWriter:
		reason = fmt.Sprintf("by a write lease of this process, of the same read-write lock (%s): a read waits "+
			"behind it until it is released; take the read with ReadLock().Downgrade(ctx, writeLease)", h.node)
	case selfWriterNoDown:
		reason = fmt.Sprintf("by a write lease of this process, of the same read-write lock (%s): a read waits "+
			"behind it until it is released; this lock has no downgrade, release the write lease first", h.node)
	case selfReader:
		reason = fmt.Sprintf("by a read lease of this process, of the same read-write lock (%s): there is no upgrade, "+
			"a write waits behind it until it is released; release the read lease first", h.node)
	default:
		return &LockedError{Path: p, Reason: "by another contender"}
	}
	return &LockedError{Path: p, Reason: reason, Held: h.node}
}

// selfWarnings are the warnings of a blocking Acquire that waits behind h, by kind.
var selfWarnings = [selfKinds]string{
	selfSame: "recipes: Acquire waits behind a lease of this process taken through the same Lock; " +
		"it waits until that lease is released (re-enter a held lease with Lease.Reenter)",
	selfWriter: "recipes: a read Acquire waits behind a write lease of this process, of the same read-write lock; " +
		"it waits until that lease is released (take the read while holding the write with ReadLock().Downgrade)",
	selfWriterNoDown: "recipes: a read Acquire waits behind a write lease of this process, of the same read-write lock; " +
		"it waits until that lease is released (this lock has no downgrade: release the write lease first)",
	selfReader: "recipes: a write Acquire waits behind a read lease of this process, of the same read-write lock; " +
		"there is no upgrade: it waits until that lease is released (release the read lease first)",
}

// warnSelf logs, once per Lock and kind, that a blocking Acquire waits behind h.
func (l *Lock) warnSelf(h selfHold) {
	if h.kind == selfNone || !l.warnedSelf[h.kind].CompareAndSwap(false, true) {
		return
	}
	l.fw.Logger().Warn(selfWarnings[h.kind], "lock", l.path, "held", h.node)
}
