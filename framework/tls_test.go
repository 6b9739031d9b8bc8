package framework_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// tlsServers are two TLS servers for the TLS tests: one whose certificate names 127.0.0.1 and
// localhost (zktest's default), one whose certificate names localhost only (no IP SAN), each
// with its own CA.
func tlsServers(t *testing.T) (both, named *zktest.Cluster) {
	t.Helper()
	return zktest.Start(t, zktest.WithTLS()), zktest.Start(t, zktest.WithTLS("localhost"))
}

// port is the port of a cluster's first (TLS) address.
func port(t *testing.T, c *zktest.Cluster) string {
	_, p, err := net.SplitHostPort(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTLSConnectAndLock connects through WithTLS with a tls.Config without ServerName (the
// option names each server), by IP literal and by host name, and takes a lock; the connection
// tracker still reads the session's frames (the negotiated session timeout) over TLS.
func TestTLSConnectAndLock(t *testing.T) {
	both, named := tlsServers(t)
	cases := []struct {
		name   string
		server string
		c      *zktest.Cluster
	}{
		{"ip-literal", "127.0.0.1:" + port(t, both), both},
		{"host-name", "localhost:" + port(t, both), both},
		{"host-name-only-in-cert", "localhost:" + port(t, named), named},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.c.TLS().ClientConfig() // ServerName empty: the trap of WithDialer
			// A minute asked, the server's maximum granted: the framework reads the negotiated
			// timeout from the decrypted ConnectResponse.
			f := newFW(t, []string{tc.server}, framework.WithTLS(cfg), framework.WithSessionTimeout(time.Minute))
			if got := f.SessionTimeout(); got != zktest.DefaultMaxSessionTimeout {
				t.Fatalf("SessionTimeout = %v over TLS, want the negotiated %v", got, zktest.DefaultMaxSessionTimeout)
			}
			m, err := recipes.NewMutex(f, uniquePath(t))
			if err != nil {
				t.Fatal(err)
			}
			lease, err := m.Acquire(testCtx(t))
			if err != nil {
				t.Fatalf("Acquire over TLS: %v", err)
			}
			if err := lease.Release(testCtx(t)); err != nil {
				t.Fatalf("Release: %v", err)
			}
		})
	}
}

// TestTLSRefused: a certificate from another CA, or for another name than the configured host,
// is refused, and WaitConnected says why; so is WithDialer's TLS, which only sees resolved
// addresses (the certificate naming only localhost fails against 127.0.0.1) or no name at all.
func TestTLSRefused(t *testing.T) {
	both, named := tlsServers(t)
	tlsDial := func(cfg *tls.Config) framework.Option { // the old way: TLS in WithDialer
		return framework.WithDialer(func(network, addr string, timeout time.Duration) (net.Conn, error) {
			return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, addr, cfg)
		})
	}
	rawTLS := func(cfg *tls.Config) framework.Option { // tls.Client on a socket, no ServerName
		return framework.WithDialer(func(network, addr string, timeout time.Duration) (net.Conn, error) {
			c, err := net.DialTimeout(network, addr, timeout)
			if err != nil {
				return nil, err
			}
			tc := tls.Client(c, cfg)
			if err := tc.Handshake(); err != nil {
				c.Close()
				return nil, err
			}
			return tc, nil
		})
	}
	cases := []struct {
		name   string
		server string
		opt    framework.Option
		want   string
		tlsErr bool // matches framework.ErrTLS (WithTLS's handshake failed)
	}{
		{"untrusted-ca", "127.0.0.1:" + port(t, both), framework.WithTLS(named.TLS().ClientConfig()),
			"certificate signed by unknown authority", true},
		{"wrong-host", "127.0.0.1:" + port(t, named), framework.WithTLS(named.TLS().ClientConfig()),
			"doesn't contain any IP SANs", true},
		{"dialer-sees-ip-not-name", "localhost:" + port(t, named), tlsDial(named.TLS().ClientConfig()),
			"doesn't contain any IP SANs", false},
		{"dialer-without-servername", "127.0.0.1:" + port(t, both), rawTLS(both.TLS().ClientConfig()),
			"ServerName", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := framework.New([]string{tc.server}, tc.opt, framework.WithSessionTimeout(4*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			err = f.WaitConnected(ctx)
			if !errors.Is(err, framework.ErrNoServer) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("WaitConnected = %v, want ErrNoServer saying %q", err, tc.want)
			}
			if errors.Is(err, framework.ErrTLS) != tc.tlsErr || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("WaitConnected = %v: matches ErrTLS %v, want %v (and DeadlineExceeded)", err, !tc.tlsErr, tc.tlsErr)
			}
		})
	}
}

// TestTLSConnectionReset: zktest's proxy in front of a TLS port forwards the TLS bytes; a reset
// connection is Suspended then Reconnected with the same session, and the lock still held.
func TestTLSConnectionReset(t *testing.T) {
	c := zktest.Start(t, zktest.WithTLS())
	p := zktest.NewProxy(t, c.Servers()[0])
	f, s := newFWListening(t, []string{p.Addr()}, framework.WithTLS(c.TLS().ClientConfig()),
		framework.WithErrorPolicy(framework.SessionPolicy))
	m, err := recipes.NewMutex(f, uniquePath(t))
	if err != nil {
		t.Fatal(err)
	}
	lease, err := m.Acquire(testCtx(t))
	if err != nil {
		t.Fatalf("Acquire over TLS through the proxy: %v", err)
	}
	id := f.SessionID()
	p.DropConnections()
	s.expect(t, framework.Suspended, framework.Reconnected)
	if f.SessionID() != id {
		t.Fatalf("session 0x%x after the reset, want 0x%x", f.SessionID(), id)
	}
	if err := lease.Err(); err != nil {
		t.Fatalf("lease after a reset under SessionPolicy: %v", err)
	}
	if err := lease.Release(testCtx(t)); err != nil {
		t.Fatalf("Release after the reset: %v", err)
	}
}
