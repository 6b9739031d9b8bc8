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
	"strconv"
	"time"
)

// WithTLS makes every member serve TLS too, on a secure client port beside its plain one:
// ZooKeeper's secureClientPort, served by Netty (NettyServerCnxnFactory), with a key and a
// certificate for "localhost" and 127.0.0.1 signed by a CA that zktest generates for the
// cluster (PEM files in its directory). Clients reach it at Cluster.SecureServers with
// Cluster.ClientTLS; readiness is still checked on the plain port.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// tlsFiles are the PEM files of a cluster's TLS mode.
type tlsFiles struct {
	caFile, keyStore string
	pool             *x509.CertPool
}

// writeTLSFiles generates a CA and a server certificate for localhost and writes them under dir:
// ca.pem (the trust store) and server.pem (key and certificate chain, ZooKeeper's PEM key store).
func writeTLSFiles(dir string) (*tlsFiles, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "zktest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	f := &tlsFiles{caFile: filepath.Join(dir, "ca.pem"), keyStore: filepath.Join(dir, "server.pem"), pool: x509.NewCertPool()}
	f.pool.AddCert(ca)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	store := append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	if err := os.WriteFile(f.caFile, caPEM, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(f.keyStore, append(store, caPEM...), 0o600); err != nil {
		return nil, err
	}
	return f, nil
}

// tlsConfigLines are the zoo.cfg lines of a member's TLS port.
func tlsConfigLines(securePort int, f *tlsFiles) []string {
	return []string{
		"secureClientPort=" + strconv.Itoa(securePort),
		"secureClientPortAddress=127.0.0.1",
		"serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
		"ssl.keyStore.location=" + f.keyStore,
		"ssl.keyStore.type=PEM",
		"ssl.trustStore.location=" + f.caFile,
		"ssl.trustStore.type=PEM",
		"ssl.clientAuth=none",
	}
}

// SecureServers returns the members' TLS addresses as "localhost:port", the name their
// certificate carries; nil without WithTLS.
func (c *Cluster) SecureServers() []string {
	var out []string
	for _, m := range c.members {
		if m.securePort > 0 {
			out = append(out, net.JoinHostPort("localhost", strconv.Itoa(m.securePort)))
		}
	}
	return out
}

// ClientTLS returns a TLS config that trusts the cluster's CA (nil without WithTLS).
func (c *Cluster) ClientTLS() *tls.Config {
	if c.tls == nil {
		return nil
	}
	return &tls.Config{RootCAs: c.tls.pool, MinVersion: tls.VersionTLS12}
}

// CAFile returns the path of the cluster's CA certificate in PEM ("" without WithTLS).
func (c *Cluster) CAFile() string {
	if c.tls == nil {
		return ""
	}
	return c.tls.caFile
}

// nettyJars are the Netty parts NettyServerCnxnFactory needs beyond those Debian's zookeeper.jar
// manifest lists (the codec and the TLS handler among them).
var nettyJars = []string{"netty-buffer", "netty-codec", "netty-common", "netty-handler", "netty-resolver",
	"netty-transport", "netty-transport-native-unix-common"}

// withNetty appends Debian's Netty jars that exist (/usr/share/java) to classpath.
func withNetty(classpath string) string {
	for _, j := range nettyJars {
		p := filepath.Join("/usr/share/java", j+".jar")
		if _, err := os.Stat(p); err == nil {
			classpath += string(os.PathListSeparator) + p
		}
	}
	return classpath
}

// errTLS wraps a failure to prepare the TLS files.
func errTLS(err error) error { return fmt.Errorf("%w: TLS files: %w", ErrStart, err) }
