package proto

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
)

// ServerTLS is the TLS configuration of a protocol server (agent serve
// --tls-cert, --tls-key) that presents the PEM certificate chain in
// certFile with the PEM key in keyFile, so that clients reach it over
// wss://, as official SDKs that allow nothing else must. It offers
// HTTP/1.1 alone: a WebSocket handshake is an HTTP/1.1 upgrade.
func ServerTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}, nil
}

// caTransport is the HTTP transport of a client that trusts the PEM
// certificates in caFile beside the system's roots (Endpoint.CAFile): an
// agent whose certificate a private CA signed, such as a reference
// agent's for a test.
func caTransport(caFile string) (*http.Transport, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s: no PEM certificate in it", caFile)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}
