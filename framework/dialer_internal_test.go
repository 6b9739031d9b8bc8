package framework

import (
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// countingConn counts the reads that reach the socket.
type countingConn struct {
	net.Conn
	reads atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}

// go-zookeeper reads each frame as a 4-byte length and then the body. Through the tracked
// connection, frames that arrived together cost one socket read, not two per frame.
func TestTrackedConnBuffersFrames(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	counted := &countingConn{Conn: client}
	tr := newConnTracker(func(string, string, time.Duration) (net.Conn, error) { return counted, nil }, slog.New(slog.DiscardHandler))
	conn, err := tr.Dial("tcp", "127.0.0.1:0", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	bodies := []string{"first", "second frame", "third"}
	var wire []byte
	for _, b := range bodies {
		wire = binary.BigEndian.AppendUint32(wire, uint32(len(b)))
		wire = append(wire, b...)
	}
	go server.Write(wire) // net.Pipe: one Write is delivered to one Read

	for _, want := range bodies {
		var hdr [4]byte
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			t.Fatalf("header: %v", err)
		}
		body := make([]byte, binary.BigEndian.Uint32(hdr[:]))
		if _, err := io.ReadFull(conn, body); err != nil {
			t.Fatalf("body: %v", err)
		}
		if string(body) != want {
			t.Fatalf("frame %q, want %q", body, want)
		}
	}
	if n := counted.reads.Load(); n != 1 {
		t.Fatalf("%d socket reads for %d frames, want 1", n, len(bodies))
	}
}

// sawFrame runs on go-zookeeper's send loop for every frame written while a CreateAndList
// waits: it looks the create's path up without copying it (issue 27), and wakes its waiter.
func TestSawFrameFindsTheCreateWithoutAllocating(t *testing.T) {
	tr := newConnTracker(nil, nil)
	const full = "/locks/_c_3f1c2a9e-9423-4e0c-a7b5-9f819e3ec2e1-lock-"
	frame := make([]byte, 16+len(full))
	binary.BigEndian.PutUint32(frame[8:], 15) // create2
	binary.BigEndian.PutUint32(frame[12:], uint32(len(full)))
	copy(frame[16:], full)
	cw := tr.awaitCreate(full)
	defer cw.stop()
	if got := testing.AllocsPerRun(100, func() { tr.sawFrame(frame) }); got != 0 {
		t.Errorf("sawFrame: %v allocations per frame, want 0", got)
	}
	select {
	case <-cw.written:
	default:
		t.Fatal("the create's frame did not wake its waiter")
	}
}

// createFrame is a create2 request frame for the server path full.
func createFrame(full string) []byte {
	frame := make([]byte, 16+len(full))
	binary.BigEndian.PutUint32(frame[8:], 15) // create2
	binary.BigEndian.PutUint32(frame[12:], uint32(len(full)))
	copy(frame[16:], full)
	return frame
}

// The tracker's waiters: a frame wakes every waiter of its path and no other; a waiter that
// stopped is forgotten (twice is fine), wherever it sits in the list; writes parse nothing
// once none is left.
func TestAwaitCreateWaiters(t *testing.T) {
	tr := newConnTracker(nil, nil)
	a1, b, a2 := tr.awaitCreate("/l/a"), tr.awaitCreate("/l/b"), tr.awaitCreate("/l/a")
	c := tr.awaitCreate("/l/c")
	closed := func(w *createWaiter) bool {
		select {
		case <-w.written:
			return true
		default:
			return false
		}
	}
	b.stop()
	b.stop()
	tr.sawFrame(createFrame("/l/a"))
	tr.sawFrame(createFrame("/l/b"))
	tr.sawFrame(createFrame("/l/a")) // again: closing twice must not panic
	for _, tc := range []struct {
		name string
		w    *createWaiter
		want bool
	}{{"a1", a1, true}, {"a2", a2, true}, {"b (stopped)", b, false}, {"c", c, false}} {
		if got := closed(tc.w); got != tc.want {
			t.Errorf("%s: written closed = %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, w := range []*createWaiter{a2, c, a1} { // the middle, the head, the tail
		w.stop()
	}
	if n := tr.waiting.Load(); n != 0 || tr.creates.Len() != 0 || tr.creates.Front() != nil {
		t.Fatalf("after every stop: %d waiting, %d listed", n, tr.creates.Len())
	}
}

// An awaitCreate costs its waiter and its channel: no map entry, no closure (issue 27).
func TestAwaitCreateAllocations(t *testing.T) {
	tr := newConnTracker(nil, nil)
	if got := testing.AllocsPerRun(100, func() { tr.awaitCreate("/locks/x").stop() }); got != 2 {
		t.Errorf("awaitCreate+stop: %v allocations, want 2", got)
	}
}
