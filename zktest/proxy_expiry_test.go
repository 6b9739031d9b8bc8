package zktest

import (
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// sessionDialer wraps a proxy's dialer and counts, per session id, the
// connections dialed after arm whose ConnectRequest asked to resume that
// session.
type sessionDialer struct {
	dial func(network, address string, timeout time.Duration) (net.Conn, error)

	mu       sync.Mutex
	armed    bool
	attempts map[int64]int
}

func (d *sessionDialer) arm() {
	d.mu.Lock()
	d.armed = true
	d.mu.Unlock()
}

func (d *sessionDialer) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	c, err := d.dial(network, address, timeout)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	armed := d.armed
	d.mu.Unlock()
	if !armed {
		return c, nil
	}
	return &sniffConn{Conn: c, d: d}, nil
}

func (d *sessionDialer) count(id int64) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.attempts[id]
}

// sniffConn reads the session id out of the first frame the client writes.
type sniffConn struct {
	net.Conn
	d     *sessionDialer
	first sync.Once
}

func (c *sniffConn) Write(b []byte) (int, error) {
	c.first.Do(func() {
		// length(4) protocolVersion(4) lastZxidSeen(8) timeOut(4) sessionId(8)
		if len(b) >= 28 {
			id := int64(binary.BigEndian.Uint64(b[20:28]))
			c.d.mu.Lock()
			c.d.attempts[id]++
			c.d.mu.Unlock()
		}
	})
	return c.Conn.Write(b)
}

// The server answers a client resuming an expired session with a
// ConnectResponse and closes the socket at once. The proxy must deliver that
// frame: a client that sees a plain EOF instead retries, and learns of the
// expiry late (at best on a later try, at worst after the session timeout).
// Here the first reconnect after each expiry must carry the news. (Attempts
// racing with ExpireSession itself are not counted: while it attaches, the
// session legitimately moves back and forth.)
func TestProxyDeliversExpiry(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	tests := []struct {
		name  string
		delay time.Duration
		runs  int
	}{
		{"direct", 0, 100},
		{"delayed", 20 * time.Millisecond, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewProxy(t, c.Member(0).Addr())
			p.Delay(tt.delay)
			late := 0
			for i := range tt.runs {
				if n := expireThroughProxy(t, c, p); n > 1 {
					late++
					t.Errorf("expiry %d: the client tried to resume the expired session %d times, want at most 1", i, n)
				}
			}
			if late > 0 {
				t.Errorf("%d of %d expiries were not delivered on the first reconnect", late, tt.runs)
			}
		})
	}
}

// expireThroughProxy opens a session through p, expires it on the server,
// waits for the client's StateExpired and returns how many connections
// dialed after the expiry tried to resume the session (1 when the first one
// delivered the news; 0 when one dialed before had already delivered it).
func expireThroughProxy(t *testing.T, c *Cluster, p *Proxy) int {
	t.Helper()
	d := &sessionDialer{dial: p.Dialer(), attempts: make(map[int64]int)}
	// Several listed hosts, so that go-zookeeper reconnects without its
	// one-second pause after a full cycle; the dialer ignores them anyway.
	hosts := []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}
	conn, small := connect(t, hosts, 10*time.Second, d.Dial)
	defer conn.Close()
	// go-zookeeper drops events when its small channel is full, and the
	// session moves back and forth while ExpireSession attaches: keep up.
	events := make(chan zk.Event, 1000)
	go func() {
		for ev := range small { // closed by conn.Close
			events <- ev
		}
	}()
	id, passwd := p.Session()
	if id != conn.SessionID() {
		t.Fatalf("proxy saw session 0x%x, client has 0x%x", id, conn.SessionID())
	}
	if err := ExpireSession(testCtx(t), c.Member(0).Addr(), id, passwd); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
	d.arm()
	waitState(t, events, zk.StateExpired, 30*time.Second)
	return d.count(id)
}
