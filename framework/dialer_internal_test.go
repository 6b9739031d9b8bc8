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
