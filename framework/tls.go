package framework

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ErrTLS wraps every failed TLS handshake of WithTLS (an untrusted certificate, a certificate for
// another host, a server that does not speak TLS). It is the reason ErrNoServer's message gives
// for the address, and WaitConnected's error matches it too when an address failed so: a
// certificate problem, which no retry mends, can be told from an unreachable server.
var ErrTLS = errors.New("framework: TLS handshake failed")

// WithTLS makes every connection TLS (ZooKeeper's secureClientPort, served by Netty) and checks
// the server's certificate against the host name as written in the server list, not against the
// address it resolved to: go-zookeeper resolves the names before it dials, so a dialer given
// through WithDialer only ever sees IP addresses. An IP literal in the server list is checked
// against the certificate's IP SANs. cfg may leave ServerName empty (each connection gets its
// server's name); a ServerName that cfg sets is used for every server instead, for a certificate
// that names the ensemble rather than each host. cfg is cloned; RootCAs nil means the system pool.
// The TLS connection runs over WithDialer's dialer when both are given (a proxy, a fault injector).
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) {
		if cfg == nil {
			c.fail("nil TLS config")
			return
		}
		c.tls = cfg.Clone()
	}
}

// hostNames is a go-zookeeper HostProvider that resolves the servers like go-zookeeper's own
// (zk.DNSHostProvider) and remembers, for each address it hands out, the host name it came from.
type hostNames struct {
	zk.DNSHostProvider

	mu     sync.Mutex
	byAddr map[string]string // "ip:port" -> the host as configured
}

func newHostNames() *hostNames { return &hostNames{byAddr: make(map[string]string)} }

// Init resolves servers (host:port each, as go-zookeeper formatted them) and records the names.
func (h *hostNames) Init(servers []string) error {
	byAddr := make(map[string]string)
	for _, s := range servers {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		cancel()
		if err != nil {
			return err
		}
		for _, a := range addrs {
			byAddr[net.JoinHostPort(a, port)] = host
		}
	}
	h.mu.Lock()
	h.byAddr = byAddr
	h.mu.Unlock()
	return h.DNSHostProvider.Init(servers)
}

// host returns the configured host of addr; for an address it did not hand out (another
// HostProvider given through WithZKOptions), addr's own host.
func (h *hostNames) host(addr string) string {
	h.mu.Lock()
	name, ok := h.byAddr[addr]
	h.mu.Unlock()
	if ok {
		return name
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// tlsDialer dials with base, then runs the TLS handshake within the same timeout, checking the
// certificate against the configured host of the address.
type tlsDialer struct {
	base  zk.Dialer
	cfg   *tls.Config
	names *hostNames
}

func (d tlsDialer) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	start := time.Now()
	raw, err := d.base(network, address, timeout)
	if err != nil {
		return nil, err
	}
	cfg := d.cfg.Clone()
	host := d.names.host(address)
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	conn := tls.Client(raw, cfg)
	if timeout > 0 {
		conn.SetDeadline(start.Add(timeout))
	}
	if err := conn.Handshake(); err != nil {
		raw.Close()
		return nil, fmt.Errorf("%w with %s as %q: %w", ErrTLS, address, cfg.ServerName, err)
	}
	conn.SetDeadline(time.Time{})
	return conn, nil
}

// dialerOf returns the dialer of cfg: WithDialer's (nil: go-zookeeper's default), under TLS when
// WithTLS was given, with the HostProvider that tells the TLS dialer each address's host name.
func dialerOf(cfg *config) (zk.Dialer, *hostNames) {
	if cfg.tls == nil {
		return cfg.dialer, nil
	}
	base := cfg.dialer
	if base == nil {
		base = net.DialTimeout
	}
	names := newHostNames()
	return tlsDialer{base: base, cfg: cfg.tls, names: names}.Dial, names
}

// alsoTLS makes err match ErrTLS as well when the last connect to some address failed in the
// TLS handshake; err's message is kept.
func (t *connTracker) alsoTLS(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.failed {
		if errors.Is(e, ErrTLS) {
			return tlsCause{err}
		}
	}
	return err
}

// tlsCause is an error that also matches ErrTLS.
type tlsCause struct{ error }

func (e tlsCause) Unwrap() []error { return []error{e.error, ErrTLS} }
