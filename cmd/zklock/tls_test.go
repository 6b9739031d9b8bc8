package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklock --cacert connects over TLS and verifies the server against the configured host name
// (issue 25.8); without the CA the server is not trusted and zklock cannot connect (exit 69).
func TestZklockTLS(t *testing.T) {
	zk := zktest.Start(t, zktest.WithTLS())
	servers := strings.Join(zk.SecureServers(), ",")
	p := lockPath(t)
	holder := startZklock(t, "--servers", servers, "--cacert", zk.CAFile(), "lock", p)
	holder.expect(t, "ZKLOCK_NODE="+p+"/", 60*time.Second)
	other := otherCA(t)
	_, errOut, code := runZklock(t, "--servers", servers, "--cacert", other, "--connect-timeout", "3s", "holders", p)
	if code != exitConnect || !strings.Contains(errOut, "certificate") {
		t.Fatalf("with another CA: exit %d, want %d and a certificate error\n%s", code, exitConnect, errOut)
	}
	checkFlagErrors(t, []flagCase{
		{"cert without key", []string{"--cert", zk.CAFile(), "holders", "/p"}, "--cert and --key"},
		{"cacert not PEM", []string{"--cacert", "/dev/null", "holders", "/p"}, "--cacert"},
	})
}

// otherCA writes a CA certificate that signed nothing the server has, and returns its file.
func otherCA(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "other CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
