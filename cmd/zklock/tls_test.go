package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestTLSFlags runs the built zklock against a TLS-only client port that requires client
// certificates: with --cacert, --cert and --key it takes the lock (by IP literal and by host
// name, the certificate being checked against the name given); without a client certificate, or
// trusting the wrong CA, it cannot connect and says why; bad flags are usage errors.
func TestTLSFlags(t *testing.T) {
	c := zktest.Start(t, zktest.WithTLSClientAuth())
	other := zktest.Start(t, zktest.WithTLS()) // another CA
	m := c.TLS()
	_, port, err := net.SplitHostPort(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	byIP, byName := "127.0.0.1:"+port, "localhost:"+port
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	client := []string{"--cert", m.ClientCertFile, "--key", m.ClientKeyFile}
	cases := []struct {
		name    string
		servers string
		flags   []string
		code    int
		say     string // in stderr
	}{
		{"ip-literal", byIP, append([]string{"--cacert", m.CAFile}, client...), 0, ""},
		{"host-name", byName, append([]string{"--cacert", m.CAFile}, client...), 0, ""},
		{"no-client-certificate", byIP, []string{"--cacert", m.CAFile}, exitConnect, "no ZooKeeper session"},
		{"untrusted-ca", byIP, append([]string{"--cacert", other.TLS().CAFile}, client...), exitConnect,
			"certificate signed by unknown authority"},
		{"plaintext-to-tls-port", byIP, nil, exitConnect, "no ZooKeeper session"},
		{"cert-without-key", byIP, []string{"--cacert", m.CAFile, "--cert", m.ClientCertFile}, exitUsage,
			"--cert and --key"},
		{"cacert-missing", byIP, []string{"--cacert", filepath.Join(t.TempDir(), "none.pem")}, exitUsage, "--cacert"},
		{"cacert-not-pem", byIP, []string{"--cacert", notPEM}, exitUsage, "no PEM certificate"},
		{"key-mismatch", byIP, []string{"--cacert", m.CAFile, "--cert", m.ClientCertFile, "--key", m.CAFile},
			exitUsage, "--cert/--key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--connect-timeout", "3s"}, tc.flags...)
			args = append(args, execArgs(t, tc.servers, []string{"--try"}, lockPath(t), "exit", "0")...)
			_, errOut, code := runZklock(t, args...)
			if code != tc.code || !strings.Contains(errOut, tc.say) {
				t.Fatalf("exit %d, stderr %q; want exit %d saying %q", code, errOut, tc.code, tc.say)
			}
		})
	}
}
