package zktest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// DefaultTLSHosts are the names the server certificate of WithTLS is for by default.
var DefaultTLSHosts = []string{"127.0.0.1", "localhost"}

// WithTLS makes every member serve clients over TLS on a secure client port (ZooKeeper's
// secureClientPort, served by Netty), with a certificate from a throwaway CA made for the cluster.
// The certificate names hosts (IP literals become IP SANs, the rest DNS names); none: the
// DefaultTLSHosts. Cluster.Servers and ConnectString then list the TLS addresses, and
// Cluster.TLS gives the CA and a client certificate. Each member keeps its plain client port
// (Member.Addr) on 127.0.0.1 for the harness's four-letter words and ExpireSession.
func WithTLS(hosts ...string) Option {
	return func(c *config) {
		c.tls = true
		c.tlsHosts = append([]string(nil), hosts...)
	}
}

// WithTLSClientAuth is WithTLS (with the default hosts unless WithTLS names others) where the
// server also requires a client certificate from the cluster's CA (ssl.clientAuth=need).
func WithTLSClientAuth() Option {
	return func(c *config) { c.tls, c.tlsClientAuth = true, true }
}

// TLSMaterial is a cluster's throwaway CA and the certificates it signed, as files (PEM) for
// tools and as values for Go clients.
type TLSMaterial struct {
	// CAFile is the CA certificate (PEM): what a client trusts.
	CAFile string
	// ClientCertFile and ClientKeyFile are a client certificate signed by the CA and its key (PEM).
	ClientCertFile, ClientKeyFile string
	// ServerKeyStore is the server's key and certificate chain (PEM) that ZooKeeper loads.
	ServerKeyStore string

	pool   *x509.CertPool
	hosts  []string // the server certificate's names
	client tls.Certificate
}

// CAPool returns a pool holding the cluster's CA.
func (t *TLSMaterial) CAPool() *x509.CertPool { return t.pool }

// ClientConfig returns a new tls.Config that trusts the cluster's CA and presents the client
// certificate. ServerName is left empty: framework.WithTLS sets it to each server's host.
func (t *TLSMaterial) ClientConfig() *tls.Config {
	return &tls.Config{RootCAs: t.pool, Certificates: []tls.Certificate{t.client}, MinVersion: tls.VersionTLS12}
}

// authority is a CA key and certificate.
type authority struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
	der  []byte
}

// newAuthority makes a self-signed CA valid for a day.
func newAuthority() (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := certTemplate("zktest CA")
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{key: key, cert: cert, der: der}, nil
}

func certTemplate(cn string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{"zktest"}},
		NotBefore:    now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
	}
}

// issue signs a leaf certificate for hosts (server) or for a client, returning the PEM of the
// certificate and of its PKCS#8 key.
func (a *authority) issue(cn string, hosts []string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := certTemplate(cn)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pemOf("CERTIFICATE", der), pemOf("PRIVATE KEY", pk), nil
}

func pemOf(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// newTLSMaterial makes a CA, a server certificate for hosts and a client certificate, and
// writes them as PEM files into dir.
func newTLSMaterial(dir string, hosts []string) (*TLSMaterial, error) {
	if len(hosts) == 0 {
		hosts = DefaultTLSHosts
	}
	ca, err := newAuthority()
	if err != nil {
		return nil, fmt.Errorf("zktest: TLS CA: %w", err)
	}
	srvCert, srvKey, err := ca.issue("zktest server", hosts, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, fmt.Errorf("zktest: TLS server certificate: %w", err)
	}
	cliCert, cliKey, err := ca.issue("zktest client", nil, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return nil, fmt.Errorf("zktest: TLS client certificate: %w", err)
	}
	t := &TLSMaterial{
		CAFile: filepath.Join(dir, "ca.pem"), ClientCertFile: filepath.Join(dir, "client.pem"),
		ClientKeyFile: filepath.Join(dir, "client-key.pem"), ServerKeyStore: filepath.Join(dir, "server-keystore.pem"),
		pool: x509.NewCertPool(), hosts: hosts,
	}
	t.pool.AddCert(ca.cert)
	// ZooKeeper's PEM key store is one file: the private key, then the certificate chain.
	keyStore := append(append(append([]byte(nil), srvKey...), srvCert...), pemOf("CERTIFICATE", ca.der)...)
	for path, data := range map[string][]byte{
		t.CAFile: pemOf("CERTIFICATE", ca.der), t.ClientCertFile: cliCert, t.ClientKeyFile: cliKey,
		t.ServerKeyStore: keyStore,
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, fmt.Errorf("zktest: TLS files: %w", err)
		}
	}
	if t.client, err = tls.X509KeyPair(cliCert, cliKey); err != nil {
		return nil, fmt.Errorf("zktest: TLS client key pair: %w", err)
	}
	return t, nil
}

// dialer is the readiness probe's TLS dialer: it checks the server certificate against the
// first of the names the certificate was made for (the probe always dials 127.0.0.1).
func (t *TLSMaterial) dialer(network, addr string, timeout time.Duration) (net.Conn, error) {
	cfg := t.ClientConfig()
	cfg.ServerName = t.hosts[0]
	d := &net.Dialer{Timeout: timeout}
	return tls.DialWithDialer(d, network, addr, cfg)
}
