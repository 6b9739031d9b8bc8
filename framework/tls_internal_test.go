package framework

import "testing"

// TestHostNamesMapsAddressesBack: every address the HostProvider hands out maps back to the
// host as configured; an address it never handed out maps to its own host.
func TestHostNamesMapsAddressesBack(t *testing.T) {
	h := newHostNames()
	if err := h.Init([]string{"localhost:2181", "127.0.0.1:2182"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ addr, want string }{
		{"127.0.0.1:2181", "localhost"},
		{"127.0.0.1:2182", "127.0.0.1"},
		{"192.0.2.7:2181", "192.0.2.7"},
		{"not-an-address", "not-an-address"},
	}
	for _, tc := range cases {
		if got := h.host(tc.addr); got != tc.want {
			t.Errorf("host(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestDialerOf: without WithTLS the dialer is WithDialer's (nil: go-zookeeper's) and no
// HostProvider is installed; with it, both are.
func TestDialerOf(t *testing.T) {
	c := defaultConfig()
	if d, h := dialerOf(&c); d != nil || h != nil {
		t.Fatalf("plain config: dialer %v, host provider %v", d != nil, h != nil)
	}
	WithTLS(nil)(&c)
	if c.err == nil {
		t.Fatal("WithTLS(nil) accepted")
	}
}
