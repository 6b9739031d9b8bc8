package framework

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"
)

// SetProtectedIDs makes f's protected creates take their GUIDs from next, so that a test can put a
// node with the same prefix in the way. Other Frameworks keep theirs.
func SetProtectedIDs(f *Framework, next func() string) {
	prev := *newProtectedID.Load()
	id := func(g *Framework) string {
		if g == f {
			return next()
		}
		return prev(g)
	}
	newProtectedID.Store(&id)
}

// SlowDispatcher makes watchmgr's dispatcher goroutine spend d on every Disconnected event, so that
// anything still driven by it lags behind go-zookeeper. remove undoes it.
func SlowDispatcher(f *Framework, d time.Duration) (remove func()) {
	return f.wm.Subscribe(func(ev zk.Event) {
		if ev.State == zk.StateDisconnected {
			time.Sleep(d)
		}
	})
}

// Relists returns how many times CreateAndList had to list again because its first listing
// overtook the create.
func Relists(f *Framework) int64 { return f.relists.Load() }

// SetCreateHooks pauses f's CreateAndList at its hand-off: created runs on the create's goroutine
// once the create has ended and before it hands over; delivered once it has handed over; collect
// on the caller right before it waits for the result. Any may be nil. remove undoes it.
func SetCreateHooks(f *Framework, created, delivered func(), collect func(ctx context.Context)) (remove func()) {
	f.createHooks.Store(&createHooks{created: created, delivered: delivered, collect: collect})
	return func() { f.createHooks.Store(nil) }
}

// SetSilence makes f's last read from a server look d old, as if the process had been paused
// for d since: the next deadline check (Session.Err, its timer, the next read) sees the silence.
func SetSilence(f *Framework, d time.Duration) { f.sockets.lastRead.Store(monoNow() - int64(d)) }

// SetWatchHook makes f's watching reads call fn between go-zookeeper's reply (its watch is
// set) and the Track that counts the watch. remove undoes it.
func SetWatchHook(f *Framework, fn func()) (remove func()) {
	f.watchHook.Store(&fn)
	return func() { f.watchHook.Store(nil) }
}

// SetWatchesGateArmed reports whether f holds operations back until go-zookeeper re-sends its
// watches (setwatches.go).
func SetWatchesGateArmed(f *Framework) bool { return f.sockets.gate.Load() != nil }

// SetReplyHook makes f run fn right after each successful reply to a create (CreateAndList's,
// Create's) or to a set's transaction, before the epoch of that reply is settled, and collect
// on CreateAndList's and CreateSetAndList's caller right after its listings were answered.
// Either may be nil. remove undoes it (and any SetCreateHooks).
func SetReplyHook(f *Framework, fn func(), collect func(ctx context.Context)) (remove func()) {
	f.createHooks.Store(&createHooks{replied: fn, collect: collect})
	return func() { f.createHooks.Store(nil) }
}

// SetMkdirsHook makes f's creates call fn when they make missing parents: at MkdirsWalked with
// the deepest existing ancestor, before the missing ones are created; at MkdirsMade with the
// parent, before the create is sent again. remove undoes it.
func SetMkdirsHook(f *Framework, fn func(at MkdirsPoint, full string)) (remove func()) {
	f.mkdirsHook.Store(&fn)
	return func() { f.mkdirsHook.Store(nil) }
}

// MkdirsPoint names a point of the making of missing parents (SetMkdirsHook).
type MkdirsPoint = mkdirsPoint

// The points of SetMkdirsHook.
const (
	MkdirsWalked = mkdirsWalked
	MkdirsMade   = mkdirsMade
)

// StubRequest passes a request that sends nothing through everything a Framework request does
// besides go-zookeeper's call, as Children does: the trace hook, the path check, the retry
// policy and its auth and connection gates, Close's count, the hand-off beside a caller whose
// ctx can end, and error mapping. For BenchmarkRequestWrapper.
func StubRequest(f *Framework, ctx context.Context, p string) (err error) {
	defer f.traceOp("stub", p, f.traceStart(), &err)
	if err := f.check(ctx, p, false); err != nil {
		return err
	}
	_, err = op(f, ctx, func() (struct{}, error) { return struct{}{}, nil })
	return err
}

// Conn returns the Framework's go-zookeeper connection, for tests that price a request against
// the same request sent bare (TestRequestAllocations).
func Conn(f *Framework) *zk.Conn { return f.conn }

// PanicRequest runs a request whose function panics, in the closure form (with false) or in
// callWith's (with true), for the test that Close still returns after it.
func PanicRequest(f *Framework, ctx context.Context, with bool) {
	if with {
		_, _ = callWith(f, ctx, 1, func(int) (struct{}, error) { panic("zkrecipes test: the request panics") })
		return
	}
	_, _ = call(f, ctx, func() (struct{}, error) { panic("zkrecipes test: the request panics") })
}

// SetCloseHook makes the Close that wins run fn right after it has won, before it goes on.
func SetCloseHook(f *Framework, fn func()) { f.closeHook.Store(&fn) }
