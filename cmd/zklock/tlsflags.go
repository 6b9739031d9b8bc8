package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/zkrecipes/zkrecipes/framework"
)

// tlsFlags are --cacert, --cert and --key, named and meant as etcdctl's: the CA bundle that
// signs the servers' certificates, and the client certificate and key the servers may require.
// Any of them turns TLS on; there is no flag to skip verification. $ZK_CACERT, $ZK_CERT and
// $ZK_KEY are their defaults, like $ZK_SERVERS for --servers.
type tlsFlags struct{ cacert, cert, key string }

func newTLSFlags(getenv func(string) string) tlsFlags {
	return tlsFlags{cacert: getenv("ZK_CACERT"), cert: getenv("ZK_CERT"), key: getenv("ZK_KEY")}
}

func (t *tlsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.cacert, "cacert", t.cacert, "")
	fs.StringVar(&t.cert, "cert", t.cert, "")
	fs.StringVar(&t.key, "key", t.key, "")
}

// option returns framework.WithTLS for the flags (the servers' certificates are checked against
// the host names of --servers), or nil when none is given. Files that cannot be read or hold no
// certificate or key are usage errors naming the flag.
func (t *tlsFlags) option() (framework.Option, error) {
	if t.cacert == "" && t.cert == "" && t.key == "" {
		return nil, nil
	}
	if (t.cert == "") != (t.key == "") {
		return nil, errors.New("--cert and --key: give both (the client certificate and its key) or neither")
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12} // RootCAs nil: the system's roots
	if t.cacert != "" {
		pem, err := os.ReadFile(t.cacert)
		if err != nil {
			return nil, fmt.Errorf("--cacert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no PEM certificate in it", t.cacert)
		}
		cfg.RootCAs = pool
	}
	if t.cert != "" {
		pair, err := tls.LoadX509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, fmt.Errorf("--cert/--key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return framework.WithTLS(cfg), nil
}
