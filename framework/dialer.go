package framework

import (
	"bufio"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// connTracker wraps go-zookeeper's dialer to remember the open sockets, so that Close can cut a
// socket that go-zookeeper would otherwise keep reading until its read timeout (2/3 of the session
// timeout) when the network is partitioned. Safe for concurrent use.
type connTracker struct {
	dial zk.Dialer

	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

func newConnTracker(d zk.Dialer) *connTracker {
	if d == nil {
		d = net.DialTimeout
	}
	return &connTracker{dial: d, conns: make(map[*trackedConn]struct{})}
}

// Dial implements zk.Dialer.
func (t *connTracker) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	c, err := t.dial(network, address, timeout)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: t}
	tc.r = bufio.NewReaderSize(c, readBufferSize)
	t.mu.Lock()
	t.conns[tc] = struct{}{}
	t.mu.Unlock()
	return tc, nil
}

// closeAll closes every socket still open.
func (t *connTracker) closeAll() {
	t.mu.Lock()
	conns := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// readBufferSize is the socket read buffer of each connection. go-zookeeper reads every frame in two
// reads (a 4-byte length, then the body); through the buffer one read system call serves both, and
// every other frame that arrived with them.
const readBufferSize = 16 << 10

type trackedConn struct {
	net.Conn
	t *connTracker
	r *bufio.Reader // only go-zookeeper's receiving goroutine reads
}

// Read reads through the buffer.
func (c *trackedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Close closes the socket and forgets it.
func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	delete(c.t.conns, c)
	c.t.mu.Unlock()
	return c.Conn.Close()
}
