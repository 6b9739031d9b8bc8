package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/zkrecipes/zkrecipes/framework"
)

// tlsOptions returns framework.WithTLS when any of --cacert, --cert, --key is given (flags as
// etcdctl names them): the servers' certificates are verified against --cacert (else the
// system's roots) and the host names of --servers; --cert and --key, given together, are the
// client's certificate for servers that ask for one (ssl.clientAuth).
func (g *globals) tlsOptions() ([]framework.Option, error) {
	if g.cacert == "" && g.cert == "" && g.key == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if g.cacert != "" {
		pem, err := os.ReadFile(g.cacert)
		if err != nil {
			return nil, fmt.Errorf("--cacert: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--cacert %s: no PEM certificate in it", g.cacert)
		}
	}
	if (g.cert == "") != (g.key == "") {
		return nil, errors.New("--cert and --key go together")
	}
	if g.cert != "" {
		pair, err := tls.LoadX509KeyPair(g.cert, g.key)
		if err != nil {
			return nil, fmt.Errorf("--cert/--key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return []framework.Option{framework.WithTLS(cfg)}, nil
}
