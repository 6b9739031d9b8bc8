package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// WithTLS reaches a TLS-only client port (zktest.WithTLS: ZooKeeper's secureClientPort on Netty)
// and verifies the certificate against the configured host name ("localhost", which
// go-zookeeper would have resolved to 127.0.0.1 before dialling); a certificate that does not
// name the configured host is refused; and the session survives a connection reset over TLS
// (the server restarted), issue 25.8.
func TestTLSVerifiesTheConfiguredHost(t *testing.T) {
	zk := zktest.Start(t, zktest.WithTLS())
	servers := zk.SecureServers()
	fw, err := framework.New(servers, framework.WithTLS(zk.ClientTLS()), framework.WithSessionTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		t.Fatalf("TLS connect to %v: %v", servers, err)
	}
	if _, err := fw.Create(ctx, "/tls-probe", []byte("x"), framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	session := fw.SessionID()
	if err := zk.Member(0).Restart(ctx); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 30*time.Second, "the session back over TLS", func() bool {
		st, err := fw.Exists(ctx, "/tls-probe")
		return err == nil && st != nil && fw.SessionID() == session
	})

	wrong := zk.ClientTLS()
	wrong.ServerName = "zk.example.com" // the certificate names localhost only
	bad, err := framework.New(servers, framework.WithTLS(wrong), framework.WithConnectionTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bad.Close() })
	bctx, bcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer bcancel()
	if err := bad.WaitConnected(bctx); err == nil {
		t.Fatal("connected to a server whose certificate names another host")
	}
	if _, err := framework.New(servers, framework.WithTLS(nil)); !errors.Is(err, framework.ErrInvalidOption) {
		t.Fatalf("WithTLS(nil): %v, want ErrInvalidOption", err)
	}
}
