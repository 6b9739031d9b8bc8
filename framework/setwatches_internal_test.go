package framework

import (
	"context"
	"encoding/binary"
	"log/slog"
	"testing"
	"time"
)

// setWatchesFrame is a request frame (length, xid, opcode) with the setWatches opcode.
func setWatchesFrame() []byte {
	f := binary.BigEndian.AppendUint32(nil, 8)
	f = binary.BigEndian.AppendUint32(f, 0xfffffff8) // xid -8, go-zookeeper's for setWatches
	return binary.BigEndian.AppendUint32(f, opSetWatches)
}

// A second disconnect before go-zookeeper re-sent its watches arms a new gate. Re-arming
// opened the previous gate, and an operation waiting on it went through though the watches
// were still not re-sent: its request could be answered before go-zookeeper read lastZxid for
// the setWatches of the next session, losing a notification. A waiter must wait for the
// setWatches, whatever gate it started on.
func TestRearmingKeepsWaitersBehindTheSetWatches(t *testing.T) {
	tr := newConnTracker(nil, slog.New(slog.DiscardHandler))
	tr.armSetWatches(true) // the first disconnect, with watches
	waiting := make(chan struct{})
	hook := func() { close(waiting) }
	gateHook.Store(&hook)
	defer gateHook.Store(nil)
	passed := make(chan error, 1)
	go func() { passed <- tr.passSetWatches(context.Background(), nil) }()
	select {
	case <-waiting: // it waits on the first gate
	case <-time.After(5 * time.Second):
		t.Fatal("passSetWatches never took the gate")
	}
	gateHook.Store(nil)
	tr.armSetWatches(true) // a second disconnect before any setWatches was written
	select {
	case err := <-passed:
		t.Fatalf("an operation passed the gate (%v) before go-zookeeper re-sent its watches", err)
	case <-time.After(200 * time.Millisecond): // no event can say "still waiting"; bounded
	}
	tr.sawSetWatches(setWatchesFrame())
	select {
	case err := <-passed:
		if err != nil {
			t.Fatalf("passSetWatches after the setWatches: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter stayed behind the gate after the setWatches was written")
	}
}
