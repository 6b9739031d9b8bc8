package recipes

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// SetDowngradeHook makes every Downgrade call fn between its checks of the write lease and
// the read node's create. remove undoes it.
func SetDowngradeHook(fn func()) (remove func()) {
	downgradeHook.Store(&fn)
	return func() { downgradeHook.Store(nil) }
}

// SetListHook makes the acquire loop's listings (not CreateAndList's) go through fn, which
// may rewrite them. remove undoes it.
func SetListHook(fn func(l *Lock, children []string) []string) (remove func()) {
	listHook.Store(&fn)
	return func() { listHook.Store(nil) }
}

// CallerTurns returns how many times, in all, the acquire loop has readied a caller under a
// context that can end (a turn handed over, or a watch's wake-up on the caller's goroutine).
func CallerTurns() int64 { return callerTurns.Load() }

// PreArmProbe is a contender of l standing on node p, for testing preArm and preArmed: arm sets
// (or keeps) the watch on p, armed reports whether it vouches for p, watch returns it.
func PreArmProbe(l *Lock, p string) (arm func(context.Context) error, armed func() bool, watch func() *framework.Watch) {
	c := &contender{lock: l, path: p}
	return c.preArm, func() bool { return c.preArmed() != nil }, func() *framework.Watch { return c.ownW }
}

// CreateName is the path the lock's sequential nodes are created under for a driver whose lock
// name is lockName.
func CreateName(l *Lock, lockName string) string { return l.createName(lockName) }

// LeaseOn is the lease that a grant of node p, created by session sess, makes when the loop's
// own-node check (contender.stands) has already set own, a data watch on p: for a watch that
// has news before the lease wires it to itself (ownwatch.go, onOwnEvent's now).
func LeaseOn(l *Lock, p string, sess *framework.Session, own *framework.Watch) *Lease {
	return newLease(l, grant{path: p, session: sess, own: own, token: tokenFor(l.fw, p, false, nil)})
}
