package framework

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// go-zookeeper v1.0.4 has a data race on reconnect: loop() starts the receive loop, which
// writes lastZxid on every reply, and only then reads lastZxid in sendSetWatches (without a
// lock) to re-register the session's watches. Two things keep us clear of it:
//   - a request sent as soon as the session is back, or queued while the connection was down,
//     could be answered inside that window: so a disconnect of a session that has watches arms
//     a gate, which the socket opens when go-zookeeper writes the setWatches request (by then
//     lastZxid has been read); a reconnect without watches opens it; and no operation is sent
//     while the gate is closed or go-zookeeper has no session (waitConnectedBounded). A watch
//     registration in progress counts as a watch (go-zookeeper may have set the watch before
//     Track counts it); if it ends without one after the reconnect, it opens the gate;
//   - even in that order nothing synchronises the read with the receive loop's later write (the
//     race detector reports it on every reconnect with watches): the socket counts each
//     setWatches it writes (an atomic store) and loads that count on every read, which gives
//     the receive loop a happens-before edge from go-zookeeper's read of lastZxid.

// opSetWatches is ZooKeeper's setWatches request opcode.
const opSetWatches = 101

// armSetWatches closes any earlier gate and arms a new one when watches will be re-registered.
func (t *connTracker) armSetWatches(watches bool) {
	var next *chan struct{}
	if watches {
		ch := make(chan struct{})
		next = &ch
	}
	if prev := t.gate.Swap(next); prev != nil {
		t.openGate(prev)
	}
}

// openGate opens g once.
func (t *connTracker) openGate(g *chan struct{}) {
	t.gateOnce.Lock()
	defer t.gateOnce.Unlock()
	select {
	case <-*g:
	default:
		close(*g)
	}
}

// sawSetWatches counts a setWatches request and opens the gate.
func (t *connTracker) sawSetWatches(frame []byte) {
	if len(frame) >= 12 && int32(binary.BigEndian.Uint32(frame[8:])) == opSetWatches {
		t.resent.Add(1)
		if g := t.gate.Swap(nil); g != nil {
			t.openGate(g)
		}
	}
}

// passSetWatches waits until no setWatches is pending, ctx ends (its error) or expired fires.
// A gate that opens because a later disconnect re-armed another is not a pass: it waits on
// the new one. A gate still closed when expired fires is opened: go-zookeeper had a session
// and nothing to re-send, so waiting longer would only stall every operation.
func (t *connTracker) passSetWatches(ctx context.Context, expired <-chan time.Time) error {
	for {
		g := t.gate.Load()
		if g == nil {
			return nil
		}
		if h := gateHook.Load(); h != nil {
			(*h)()
		}
		select {
		case <-*g: // passed, unless a re-arm opened it: look at the gate again
		case <-expired:
			t.log.Debug("framework: no setWatches seen after the reconnect; going on")
			if t.gate.CompareAndSwap(g, nil) {
				t.openGate(g)
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// openIfNothingToResend opens the gate that a disconnect armed because a watch registration was
// in progress, once go-zookeeper has its session and no watch is left to re-send: the
// registration ended without setting one, so no setWatches will open it.
func (f *Framework) openIfNothingToResend() {
	g := f.sockets.gate.Load() // before the state: a later disconnect's gate is never opened here
	if g == nil || f.conn.State() != zk.StateHasSession || f.wm.Resending() {
		return
	}
	if f.sockets.gate.CompareAndSwap(g, nil) {
		f.sockets.openGate(g)
	}
}

// gateHook, set only by tests, runs in passSetWatches once it has taken the gate it waits on.
var gateHook atomic.Pointer[func()]
