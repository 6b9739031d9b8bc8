package framework

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/internal/ilist"
)

// connTracker wraps go-zookeeper's dialer to remember the open sockets, so that Close can cut a
// socket that go-zookeeper would otherwise keep reading until its read timeout (2/3 of the session
// timeout) when the network is partitioned. Safe for concurrent use.
type connTracker struct {
	dial zk.Dialer
	log  *slog.Logger

	mu      sync.Mutex
	conns   map[*trackedConn]struct{}
	failed  map[string]error // the last connect error of each address that has failed
	creates createWaiters    // awaitCreate's waiters
	waiting atomic.Int32     // how many: writes parse nothing while it is 0

	// lastRead is when a socket last returned bytes (monoNow; 0: never). heardAfter, set before
	// the first dial, is told the silence before each such read, before lastRead moves on.
	lastRead   atomic.Int64
	heardAfter func(silent time.Duration)

	gate     atomic.Pointer[chan struct{}] // open once go-zookeeper re-sent the watches (setwatches.go)
	resent   atomic.Int64                  // setWatches requests written (setwatches.go)
	gateOnce sync.Mutex

	creds   atomic.Pointer[sessionCreds] // the session of the last ConnectResponse (credentials.go)
	current atomic.Pointer[trackedConn]  // the socket dialed last (replyepoch.go)
}

func newConnTracker(d zk.Dialer, log *slog.Logger) *connTracker {
	if d == nil {
		d = net.DialTimeout
	}
	return &connTracker{dial: d, log: log, conns: make(map[*trackedConn]struct{}),
		failed: make(map[string]error)}
}

// Dial implements zk.Dialer. A failed connect is logged at Warn with its address, and remembered
// for ErrNoServer's message.
func (t *connTracker) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	c, err := t.dial(network, address, timeout)
	t.mu.Lock()
	if err != nil {
		t.failed[address] = err
	} else {
		delete(t.failed, address)
	}
	t.mu.Unlock()
	if err != nil {
		t.log.Warn("framework: cannot connect to ZooKeeper", "addr", address, "err", err)
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: t}
	tc.r = bufio.NewReaderSize(socketReader{c: c, t: t}, readBufferSize)
	t.mu.Lock()
	t.conns[tc] = struct{}{}
	t.mu.Unlock()
	t.current.Store(tc)
	return tc, nil
}

// noServer describes the connect failures behind go-zookeeper's ErrNoServer: each address whose
// last connect failed, with its error (go-zookeeper dials resolved addresses); when none failed,
// the servers, which accepted connections but gave no session.
func (t *connTracker) noServer(servers []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.failed) == 0 {
		return strings.Join(servers, ", ") + " (no session yet: connecting, or connected and refused a session)"
	}
	parts := make([]string, 0, len(t.failed))
	for _, addr := range slices.Sorted(maps.Keys(t.failed)) {
		parts = append(parts, fmt.Sprintf("%s (%v)", addr, t.failed[addr]))
	}
	return strings.Join(parts, ", ")
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

	head     []byte // the first frame so far, until headDone (credentials.go)
	headDone bool
	epoch    atomic.Pointer[Session] // the epoch of its session, once it has one (replyepoch.go)
}

// socketReader is what the buffer reads from: the socket, noting the time of each read that
// returns bytes (one clock reading per read system call, not per frame).
type socketReader struct {
	c net.Conn
	t *connTracker
}

func (r socketReader) Read(p []byte) (int, error) {
	n, err := r.c.Read(p)
	if n > 0 {
		r.t.heard()
	}
	return n, err
}

// heard records a read from a server, first telling heardAfter how long the silence before it
// was: bytes that waited in the kernel through a pause of this process must not hide that pause.
func (t *connTracker) heard() {
	now := monoNow()
	if last := t.lastRead.Load(); last != 0 && t.heardAfter != nil {
		t.heardAfter(time.Duration(now - last))
	}
	t.lastRead.Store(now)
}

// Read reads through the buffer. The load of resent orders what go-zookeeper's receive loop
// does with the bytes after its setWatches resend (see setwatches.go).
func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 && !c.headDone {
		c.sawConnectBytes(p[:n])
	}
	c.t.resent.Load()
	return n, err
}

// Write writes a frame (go-zookeeper writes each request in one call) and tells awaitCreate's
// waiters when it was their create.
func (c *trackedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err == nil && c.t.waiting.Load() > 0 {
		c.t.sawFrame(p)
	}
	c.t.sawSetWatches(p)
	return n, err
}

// createWaiter is one awaitCreate: the server path of its create, and the channel the write of
// that create closes. The tracker links its waiters in a list (usually of none or one: a
// Framework's creates in flight), searched by path on each create written: no map, no closure
// per create (issue 27).
type createWaiter struct {
	t       *connTracker
	full    string
	written chan struct{}
	links   ilist.Links[createWaiter] // in t.creates until stop
}

// createWaiters is the list of a tracker's waiters, the latest first.
type createWaiters = ilist.List[createWaiter, createWaiterLinks]

// createWaiterLinks finds a createWaiter's links for connTracker.creates.
type createWaiterLinks struct{}

func (createWaiterLinks) Links(w *createWaiter) *ilist.Links[createWaiter] { return &w.links }

// awaitCreate returns a waiter whose written channel closes once a create request for full (a
// server path, as the request carries it) has been written to a socket. Its stop forgets it.
func (t *connTracker) awaitCreate(full string) *createWaiter {
	w := &createWaiter{t: t, full: full, written: make(chan struct{})}
	t.mu.Lock()
	t.creates.PushFront(w)
	t.waiting.Add(1)
	t.mu.Unlock()
	return w
}

// stop forgets the waiter; idempotent.
func (w *createWaiter) stop() {
	t := w.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.creates.Remove(w) {
		t.waiting.Add(-1)
	}
}

// Request opcodes of the creates (ZooKeeper's OpCode), whose body starts with the path.
var createOpcodes = []int32{1, 15, 19, 21} // create, create2, createContainer, createTTL

// opMulti is ZooKeeper's multi opcode; a transaction whose first op is a create (a set create)
// is waited for by the path of that create.
const opMulti = 14

// sawFrame wakes the waiters of the create request in frame (length, xid, opcode, path, ...), or
// of the multi whose first op (type int32, done bool, err int32, then the request) is a create.
func (t *connTracker) sawFrame(frame []byte) {
	if len(frame) < 16 {
		return
	}
	at := 12 // the path's length
	switch op := int32(binary.BigEndian.Uint32(frame[8:])); {
	case op == opMulti && len(frame) >= 25 && binary.BigEndian.Uint32(frame[12:]) == 1:
		at = 21
	case !slices.Contains(createOpcodes, op):
		return
	}
	n := int(int32(binary.BigEndian.Uint32(frame[at:])))
	if n < 0 || len(frame) < at+4+n {
		return
	}
	full := frame[at+4 : at+4+n]
	t.mu.Lock()
	defer t.mu.Unlock()
	for w := t.creates.Front(); w != nil; w = t.creates.Next(w) {
		if w.full == string(full) { // a comparison with the bytes: no copy
			select {
			case <-w.written:
			default:
				close(w.written)
			}
		}
	}
}

// Close closes the socket and forgets it.
func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	delete(c.t.conns, c)
	c.t.mu.Unlock()
	return c.Conn.Close()
}
