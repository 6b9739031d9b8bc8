package zktest

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxyDialTimeout bounds the proxy's dial to the server.
const proxyDialTimeout = 5 * time.Second

// proxyConn is one client connection through a Proxy: a reader and a
// writer goroutine per direction, joined by a queue of timed frames.
type proxyConn struct {
	p      *Proxy
	client net.Conn
	done   chan struct{} // closed by close()

	mu        sync.Mutex
	server    net.Conn
	closeOnce sync.Once

	tainted    bool      // guarded by p.mu: lived through a blackhole
	in         io.Reader // the client's bytes, from its first (sniffed) byte on
	raw        bool      // a TLS connection: bytes forwarded as they come, nothing parsed
	cutPending atomic.Bool
	cutXid     atomic.Int32
}

// frameOut is a frame waiting for its delivery time.
type frameOut struct {
	b      []byte
	at     time.Time
	notify bool // a watch notification: counted as it is handed to the client
}

func (c *proxyConn) close() {
	c.closeOnce.Do(func() {
		close(c.done)
		c.client.Close()
		c.closeServer()
	})
}

// closeServer closes the server side only; frames already queued for the
// client are still delivered.
func (c *proxyConn) closeServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.server != nil {
		c.server.Close()
	}
}

func (c *proxyConn) run() {
	defer c.p.wg.Done()
	defer c.p.unregister(c)
	defer c.close()
	if c.bornInBlackhole() {
		_, _ = io.Copy(io.Discard, c.client) // ends when Blackhole(false) or Close closes it
		return
	}
	if !c.sniff() {
		return
	}
	server, err := net.DialTimeout("tcp", c.p.target, proxyDialTimeout)
	if err != nil {
		return
	}
	c.mu.Lock()
	c.server = server
	c.mu.Unlock()
	select {
	case <-c.done: // closed while dialing
		server.Close()
		return
	default:
	}
	toServer := make(chan frameOut, 256)
	toClient := make(chan frameOut, 256)
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); c.readClient(toServer) }()
	go func() { defer wg.Done(); c.readServer(toClient) }()
	go func() { defer wg.Done(); c.write(server, toServer, c.closeServer) }()
	go func() { defer wg.Done(); c.write(c.client, toClient, c.close) }()
	wg.Wait()
}

func (c *proxyConn) bornInBlackhole() bool {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.p.blackhole
}

// enqueue hands f to a writer; false once the connection is closing.
func (c *proxyConn) enqueue(q chan<- frameOut, f frameOut) bool {
	select {
	case q <- f:
		return true
	case <-c.done:
		return false
	}
}

func (c *proxyConn) stamp(b []byte) frameOut {
	return frameOut{b: b, at: time.Now().Add(time.Duration(c.p.delay.Load()))}
}

// readClient forwards client frames: the ConnectRequest first, then
// requests, counted by opcode and possibly armed for a reply cut.
func (c *proxyConn) readClient(q chan<- frameOut) {
	defer close(q)
	defer c.close()
	for first := true; ; first = false {
		b, err := c.read(c.in)
		if err != nil {
			return
		}
		forward := true
		if first || c.raw {
			forward = c.p.forwardReply(c) // same blackhole rule, nothing to count
		} else {
			xid, op, ok := requestHeader(b)
			counted := ok && op != OpPing && xid != xidPing
			var cut bool
			forward, cut = c.p.forwardRequest(c, op, firstMultiOp(b, op), counted)
			if cut {
				c.cutXid.Store(xid)
				c.cutPending.Store(true)
			}
		}
		if forward && !c.enqueue(q, c.stamp(b)) {
			return
		}
	}
}

// readServer forwards server frames: the ConnectResponse first (its
// session is recorded), then replies and notifications. The reply to a cut
// request is swallowed and the connection closed. When the server side ends
// it closes q without closing the client: the client's writer delivers what
// is queued (a server closes right after its last word, e.g. the
// ConnectResponse that says a session expired), then closes the connection.
func (c *proxyConn) readServer(q chan<- frameOut) {
	defer close(q)
	defer c.closeServer()
	for first := true; ; first = false {
		b, err := c.read(c.server)
		if err != nil {
			return
		}
		f := c.stamp(b)
		if c.raw {
			// encrypted: no session, reply or notification to see
		} else if first {
			if r, err := parseConnectResponse(b); err == nil {
				c.p.recordSession(r)
			}
		} else if xid, ok := replyXid(b); ok {
			if c.cutPending.Load() && xid == c.cutXid.Load() {
				return // swallow the reply; the client's writer then cuts the connection
			}
			f.notify = xid == xidNotification
		}
		if c.p.forwardReply(c) && !c.enqueue(q, f) {
			return
		}
	}
}

// write delivers queued frames to dst, each no earlier than its time, until
// q is closed; then, or when a write fails, it calls end. After a failed
// write it keeps draining q (discarding) so that its reader never blocks.
func (c *proxyConn) write(dst net.Conn, q <-chan frameOut, end func()) {
	defer end()
	for f := range q {
		if wait := time.Until(f.at); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-c.done:
				t.Stop()
				return
			}
		}
		// Count before writing: a client that reacts to the notification must
		// never observe a count that does not include it yet.
		if f.notify {
			c.p.notifications.Add(1)
		}
		if _, err := dst.Write(f.b); err != nil {
			if f.notify {
				c.p.notifications.Add(-1)
			}
			end()
			discard(q)
			return
		}
	}
}

// discard drains q until it is closed.
func discard(q <-chan frameOut) {
	for range q {
	}
}

// tlsHandshakeRecord is the first byte of a TLS connection (a handshake record). A ZooKeeper
// ConnectRequest starts with its length, whose first byte is 0.
const tlsHandshakeRecord = 0x16

// sniff reads the client's first byte to tell a TLS connection (forwarded raw: DropConnections,
// Blackhole and Delay work on it; request counts, CutReplyAfter and Session see nothing) from
// plain ZooKeeper. False if the client went before sending anything.
func (c *proxyConn) sniff() bool {
	var b [1]byte
	if _, err := io.ReadFull(c.client, b[:]); err != nil {
		return false
	}
	c.raw = b[0] == tlsHandshakeRecord
	c.in = io.MultiReader(bytes.NewReader(b[:]), c.client)
	return true
}

// rawChunk is the most a raw connection forwards per read.
const rawChunk = 32 << 10

// read returns the next frame of r, or on a raw connection the next bytes that arrived.
func (c *proxyConn) read(r io.Reader) ([]byte, error) {
	if !c.raw {
		return readFrame(r)
	}
	buf := make([]byte, rawChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			return buf[:n], nil // an error comes again on the next read
		}
		if err != nil {
			return nil, err
		}
	}
}
