package zktest

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy is a TCP proxy in front of one ZooKeeper server that understands
// ZooKeeper's framing, so tests can cut, stall or slow one client's
// connection and count its requests. Plug it in with
// zk.Connect([]string{p.Addr()}, timeout, zk.WithDialer(p.Dialer())):
// go-zookeeper still resolves the listed hosts, so list a real address.
// In front of a TLS port (WithTLS) it forwards the encrypted bytes as they
// come: DropConnections, Blackhole and Delay work; request counts,
// CutReplyAfter and Session, which read ZooKeeper's frames, do not.
// Safe for concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu        sync.Mutex
	conns     map[*proxyConn]struct{}
	closed    bool
	blackhole bool
	cutOps    map[int32]bool // armed by CutReplyAfter; cleared when a cut fires
	cutMulti  map[int32]bool // armed by CutReplyAfterMulti (first operations); cleared when a cut fires
	cuts      int64          // cuts fired
	counts    map[int32]int64
	sessionID int64
	passwd    []byte

	delay         atomic.Int64 // time.Duration
	notifications atomic.Int64
}

// NewProxy starts a proxy in front of target ("127.0.0.1:port") for the
// test; tb.Cleanup closes it and every connection through it.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p, err := OpenProxy(target)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() { p.Close() })
	return p
}

// OpenProxy starts a proxy in front of target for callers outside tests;
// the caller must Close it.
func OpenProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("zktest: proxy listen: %w", err)
	}
	p := &Proxy{
		target: target, ln: ln,
		conns:  make(map[*proxyConn]struct{}),
		cutOps: make(map[int32]bool), cutMulti: make(map[int32]bool),
		counts: make(map[int32]int64),
	}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr returns the proxy's listening address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target returns the server address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Dialer returns a go-zookeeper dialer (for zk.WithDialer) that ignores the
// address it is given and always dials the proxy.
func (p *Proxy) Dialer() func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(_, _ string, timeout time.Duration) (net.Conn, error) {
		return net.DialTimeout("tcp", p.Addr(), timeout)
	}
}

// DropConnections closes every current connection; the client sees a
// disconnect and reconnects (through the proxy) with its session intact.
func (p *Proxy) DropConnections() {
	p.mu.Lock()
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
}

// Blackhole(true) stops forwarding in both directions: frames are dropped,
// sockets stay open, and new connections are accepted but never reach the
// server, like a network partition. Blackhole(false) ends it and closes
// every connection that lived through it (their streams lost frames), so
// the client reconnects cleanly.
func (p *Proxy) Blackhole(on bool) {
	p.mu.Lock()
	p.blackhole = on
	var drop []*proxyConn
	for c := range p.conns {
		if on {
			c.tainted = true
		} else if c.tainted {
			drop = append(drop, c)
		}
	}
	p.mu.Unlock()
	for _, c := range drop {
		c.close()
	}
}

// Delay holds every forwarded frame for d, in both directions, keeping
// their order (a latency, not a throughput limit). 0 turns it off.
func (p *Proxy) Delay(d time.Duration) { p.delay.Store(int64(d)) }

// CutReplyAfter arms a one-shot fault: the next request with one of these
// opcodes is forwarded to the server, then its reply is swallowed and the
// connection closed, as when a create is applied but its answer is lost.
// A later call replaces the armed opcodes; no opcodes disarms it. Whichever
// cut fires first, this one or CutReplyAfterMulti's, disarms both.
func (p *Proxy) CutReplyAfter(opcodes ...int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOps = make(map[int32]bool, len(opcodes))
	for _, op := range opcodes {
		p.cutOps[op] = true
	}
}

// CutReplyAfterMulti arms the same one-shot fault for the next transaction
// (an OpMulti request) whose first operation has one of these opcodes:
// CutReplyAfterMulti(OpCreate) loses the reply of a transaction that creates
// nodes (a transactional multi-lock's queueing) and spares those that begin
// with a check (a guarded write) or a delete. Arming OpMulti itself with
// CutReplyAfter cuts any transaction. A later call replaces the armed
// opcodes; no opcodes disarms it. Whichever cut fires first, this one or
// CutReplyAfter's, disarms both.
func (p *Proxy) CutReplyAfterMulti(firstOps ...int32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutMulti = make(map[int32]bool, len(firstOps))
	for _, op := range firstOps {
		p.cutMulti[op] = true
	}
}

// Cuts returns how many armed reply cuts have fired since the start or the
// last ResetCounts.
func (p *Proxy) Cuts() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

// Requests returns how many client requests of each opcode were forwarded
// since the start or the last ResetCounts. Pings, ConnectRequests and
// frames dropped by a blackhole are not counted.
func (p *Proxy) Requests() map[int32]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}

// Notifications returns how many watch notifications (xid -1) the proxy
// delivered to the client since the start or the last ResetCounts.
func (p *Proxy) Notifications() int64 { return p.notifications.Load() }

// ResetCounts zeroes the request, notification and cut counts.
func (p *Proxy) ResetCounts() {
	p.mu.Lock()
	clear(p.counts)
	p.cuts = 0
	p.notifications.Store(0)
	p.mu.Unlock()
}

// Connections returns the number of client connections currently open.
func (p *Proxy) Connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

// Session returns the session id and password from the last
// ConnectResponse that granted a session (0, nil before the first).
func (p *Proxy) Session() (id int64, passwd []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessionID, append([]byte(nil), p.passwd...)
}

// Close stops the proxy, closes every connection and waits for its
// goroutines. It is idempotent.
func (p *Proxy) Close() error {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	p.mu.Unlock()
	if already {
		return nil
	}
	err := p.ln.Close()
	p.DropConnections()
	p.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // listener closed
		}
		c := &proxyConn{p: p, client: client, done: make(chan struct{})}
		if !p.register(c) {
			client.Close()
			return
		}
		p.wg.Add(1)
		go c.run()
	}
}

// register adds c unless the proxy is closed; a conn born in a blackhole
// is tainted.
func (p *Proxy) register(c *proxyConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	c.tainted = p.blackhole
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) unregister(c *proxyConn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// forwardRequest decides the fate of a client request: false drops it
// (blackhole). cut reports that its reply must be swallowed. first is the
// opcode of a transaction's first operation (-1 for other requests).
func (p *Proxy) forwardRequest(c *proxyConn, op, first int32, counted bool) (forward, cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blackhole || c.tainted { // a stream that lost a frame never carries another (TCP cannot)
		c.tainted = true
		return false, false
	}
	if counted {
		p.counts[op]++
	}
	if p.cutOps[op] || op == OpMulti && p.cutMulti[first] {
		clear(p.cutOps)
		clear(p.cutMulti)
		p.cuts++
		return true, true
	}
	return true, false
}

// forwardReply reports whether a server frame passes (false: blackhole, or a connection that
// lived through one: Blackhole(false) closes it, and until then it forwards nothing, since a
// real stream never delivers a frame after one it lost).
func (p *Proxy) forwardReply(c *proxyConn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blackhole || c.tainted {
		c.tainted = true
		return false
	}
	return true
}

func (p *Proxy) recordSession(r connectResponse) {
	if r.sessionID == 0 {
		return
	}
	p.mu.Lock()
	p.sessionID, p.passwd = r.sessionID, r.passwd
	p.mu.Unlock()
}
