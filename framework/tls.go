package framework

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// WithTLS connects to the servers' TLS port (ZooKeeper's secureClientPort, served by Netty)
// with cfg, and verifies each server's certificate against the host name of its configured
// address ("zk1.example.com:2281"), as Curator does: when cfg.ServerName is empty it is that
// host name. go-zookeeper resolves host names before it calls its dialer, which would leave
// nothing but an IP address to verify; with WithTLS the Framework gives go-zookeeper the
// addresses as configured (tried in turn, each resolved when dialled), so the dialer still knows
// the name. A dialer from WithDialer, if any, opens the TCP connection beneath. cfg is cloned;
// a nil cfg is an invalid option.
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) {
		if cfg == nil {
			c.fail("nil TLS config")
			return
		}
		c.tls = cfg.Clone()
	}
}

// tlsDialer returns a zk.Dialer that dials with base (net.DialTimeout when nil) and runs the TLS
// handshake within the same timeout, verifying against address's host unless cfg names one.
func tlsDialer(cfg *tls.Config, base zk.Dialer) zk.Dialer {
	if base == nil {
		base = net.DialTimeout
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		start := time.Now()
		raw, err := base(network, address, timeout)
		if err != nil {
			return nil, err
		}
		c := cfg.Clone()
		if c.ServerName == "" {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				raw.Close()
				return nil, fmt.Errorf("framework: TLS to %s: %w", address, err)
			}
			c.ServerName = host
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout-time.Since(start))
		defer cancel()
		conn := tls.Client(raw, c)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, fmt.Errorf("framework: TLS handshake with %s: %w", address, err)
		}
		return conn, nil
	}
}

// literalHosts is a zk.HostProvider that hands go-zookeeper the servers as configured, unresolved,
// in turn, so that the dialer sees their host names (WithTLS). Safe for concurrent use.
type literalHosts struct {
	mu      sync.Mutex
	servers []string
	next    int // index of the server Next returns
	tried   int // servers tried since the last Connected
}

// Init implements zk.HostProvider.
func (h *literalHosts) Init(servers []string) error {
	if len(servers) == 0 {
		return fmt.Errorf("%w: no servers", ErrInvalidOption)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers = append([]string(nil), servers...)
	return nil
}

// Len implements zk.HostProvider.
func (h *literalHosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next implements zk.HostProvider: retryStart is true once every server was tried without a
// connection.
func (h *literalHosts) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.servers[h.next]
	h.next = (h.next + 1) % len(h.servers)
	h.tried++
	retryStart := h.tried > len(h.servers)
	if retryStart {
		h.tried = 1
	}
	return s, retryStart
}

// Connected implements zk.HostProvider.
func (h *literalHosts) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tried = 0
}
