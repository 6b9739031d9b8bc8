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
	written, stop := tr.awaitCreate(full)
	defer stop()
	if got := testing.AllocsPerRun(100, func() { tr.sawFrame(frame) }); got != 0 {
		t.Errorf("sawFrame: %v allocations per frame, want 0", got)
	}
	select {
	case <-written:
	default:
		t.Fatal("the create's frame did not wake its waiter")
	}
}
