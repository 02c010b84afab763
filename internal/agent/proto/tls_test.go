package proto

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/testenv"
)

// A server with a certificate (ServerTLS) serves every protocol over
// wss:// to a client that trusts its CA (Endpoint.CAFile): the utterance
// is heard whole. A client without the CA refuses the certificate, and a
// CA file that is missing or holds no certificate is one error naming it.
func TestEveryProtocolOverTLS(t *testing.T) {
	files := testenv.NewTLSFiles(t)
	cfg, err := ServerTLS(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	for _, protocol := range Protocols() {
		t.Run(protocol, func(t *testing.T) {
			utt := constant(0.25, 7*FrameSamples+100)
			h, err := NewHandler(protocol, func() (Agent, error) { return &scripted{sayAt: 5, utt: utt}, nil }, ServerOptions{Rate: testRate, RealtimeLead: testLead})
			if err != nil {
				t.Fatal(err)
			}
			l := tls.NewListener(mustListen(), cfg)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- Serve(ctx, l, h) }()
			defer func() { cancel(); <-done }()
			url := "wss://" + l.Addr().String() + "/"
			dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
			defer dcancel()
			s, err := Dial(dctx, Endpoint{Protocol: protocol, URL: url, Rate: testRate, CAFile: files.CA})
			if err != nil {
				t.Fatal(err)
			}
			if protocol == MoshiName {
				// Opus passes a step of DC as a decaying pulse
				// (moshi_test.go tests what is heard).
				if rec := run(t, s, 40, level(0, 0, 0), nil); peak(rec.heard) < 0.1 {
					t.Errorf("heard a peak of %.3f over TLS, want the utterance", peak(rec.heard))
				}
			} else if rec := run(t, s, 40, level(0, 0, 0), responseHeard(leadOf(protocol))); count(rec.heard, 0.25) != len(utt) {
				t.Errorf("heard %d samples of the utterance over TLS, want %d", count(rec.heard, 0.25), len(utt))
			} else if want := []EventKind{ResponseStarted, ResponseDone}; !slices.Equal(rec.kinds(), want) {
				t.Errorf("events %v, want %v", rec.kinds(), want)
			}
			if _, err := Dial(dctx, Endpoint{Protocol: protocol, URL: url, Rate: testRate}); err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("a client without the CA: %v, want the certificate refused", err)
			}
			missing := filepath.Join(t.TempDir(), "none.pem")
			for _, c := range []struct{ file, want string }{{missing, "none.pem"}, {files.Key, "key.pem: no PEM certificate in it"}} {
				if _, err := Dial(dctx, Endpoint{Protocol: protocol, URL: url, Rate: testRate, CAFile: c.file}); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("CA file %s: %v, want an error naming it", c.file, err)
				}
			}
		})
	}
	if _, err := ServerTLS(files.CA, files.CA); err == nil || !strings.Contains(err.Error(), "ca.pem") {
		t.Errorf("a key file holding no key: %v, want an error naming it", err)
	}
}
