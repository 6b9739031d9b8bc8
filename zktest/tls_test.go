package zktest_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestTLSClientAuth: under WithTLSClientAuth the server takes a client with the cluster's client
// certificate and refuses one without a certificate.
func TestTLSClientAuth(t *testing.T) {
	c := zktest.Start(t, zktest.WithTLSClientAuth())
	noCert := c.TLS().ClientConfig()
	noCert.Certificates = nil
	cases := []struct {
		name string
		cfg  *tls.Config
		ok   bool
	}{
		{"client-certificate", c.TLS().ClientConfig(), true},
		{"no-certificate", noCert, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := framework.New(c.Servers(), framework.WithTLS(tc.cfg), framework.WithSessionTimeout(4*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			limit := 3 * time.Second
			if tc.ok {
				limit = zktest.ConnectTimeout
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			err = f.WaitConnected(ctx)
			if tc.ok && err != nil {
				t.Fatalf("WaitConnected with a client certificate: %v", err)
			}
			if !tc.ok && (!errors.Is(err, framework.ErrNoServer) || !strings.Contains(err.Error(), "127.0.0.1")) {
				t.Fatalf("WaitConnected without a client certificate = %v, want ErrNoServer", err)
			}
		})
	}
}
