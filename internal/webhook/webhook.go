// Package webhook posts a scheduled run's verdict to the URL its schedule
// names (docs/operations.md#webhooks), and says how that URL may be shown.
// A webhook URL often carries a credential (user:password@, ?token=), so
// it is shown and stored only masked (Mask); it is posted to without
// following redirects, and never to a link-local or cloud metadata
// address unless the operator allows it (Policy).
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/redact"
)

// Policy is what the operator allows webhooks.
type Policy struct {
	// AllowLinkLocal lets webhooks reach link-local addresses
	// (169.254.0.0/16, fe80::/10), where cloud metadata services answer.
	AllowLinkLocal bool
}

// metadata are cloud metadata addresses outside the link-local ranges.
var metadata = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// CheckAddress refuses an address a webhook must not be posted to: link-
// local and metadata addresses (unless allowed), unspecified and multicast
// addresses. Loopback and private addresses are allowed: a webhook
// receiver on the same machine or network is the common case.
func (p Policy) CheckAddress(a netip.Addr) error {
	a = a.Unmap()
	switch {
	case a.IsUnspecified():
		return fmt.Errorf("%s is the unspecified address", a)
	case a.IsMulticast():
		return fmt.Errorf("%s is a multicast address", a)
	case p.AllowLinkLocal:
		return nil
	case a.IsLinkLocalUnicast():
		return fmt.Errorf("%s is a link-local address, where cloud metadata services answer (the operator allows it with webhook_allow_link_local)", a)
	}
	for _, m := range metadata {
		if a == m {
			return fmt.Errorf("%s is a cloud metadata address (the operator allows it with webhook_allow_link_local)", a)
		}
	}
	return nil
}

// Check accepts a webhook URL: http or https with a host, no spaces or
// control characters anywhere, and no address the policy refuses when the
// host is one. Errors show the URL masked.
func (p Policy) Check(raw string) error {
	if i := strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Errorf("--notify %s: a space or control character at byte %d (percent-encode it)", Mask(raw), i)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--notify %s: want an http or https URL", Mask(raw))
	}
	if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil {
		if err := p.CheckAddress(a); err != nil {
			return fmt.Errorf("--notify %s: %w", Mask(raw), err)
		}
	}
	return nil
}

// Mask is a URL as it may be shown or stored: its user information (a
// user name can be a token too) becomes "***", as does the value of every
// query parameter and every path segment that looks like a token (16
// characters or more, letters and digits mixed: Slack's and Discord's
// webhooks carry their secret in the path); the fragment is dropped. Text
// that does not parse as a URL is "(a URL that does not parse)".
func Mask(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if u.User != nil {
		u.User = url.User("***")
	}
	if u.RawQuery != "" {
		q := u.Query()
		var parts []string
		for _, k := range sortedKeys(q) {
			for range q[k] {
				parts = append(parts, url.QueryEscape(k)+"=***")
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	segments := strings.Split(u.EscapedPath(), "/")
	for i, seg := range segments {
		if tokenLike(seg) {
			segments[i] = "***"
		}
	}
	u.RawPath = ""
	u.Path, _ = url.PathUnescape(strings.Join(segments, "/"))
	u.Fragment, u.RawFragment = "", ""
	return strings.ReplaceAll(u.String(), "%2A%2A%2A", "***") // the escaped mask
}

// tokenLike is a path segment that may be a secret: long, with letters
// and digits.
func tokenLike(seg string) bool {
	return len(seg) >= 16 && strings.ContainsFunc(seg, unicode.IsLetter) && strings.ContainsFunc(seg, unicode.IsDigit)
}

func sortedKeys(q url.Values) []string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Timeout bounds one POST: a webhook that hangs is one failed attempt,
// not a stuck run.
const Timeout = 10 * time.Second

// Post posts body as JSON to the URL under the policy. A redirect is not
// followed (a receiver that answers 3xx has not taken the verdict), an
// address the policy refuses is not connected to, whatever name resolves
// to it, and anything but a 2xx answer is an error. Errors show the URL
// masked.
func (p Policy) Post(ctx context.Context, raw string, body []byte) error {
	if err := p.Check(raw); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, raw, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook %s: %w", Mask(raw), err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message quotes the URL unmasked
		}
		// A transport error may quote what the receiver sent.
		return fmt.Errorf("webhook %s: %s", Mask(raw), redact.Peer(err.Error(), secrets(raw)...))
	}
	resp.Body.Close()
	status := redact.Peer(resp.Status, secrets(raw)...)
	switch {
	case resp.StatusCode/100 == 3:
		return fmt.Errorf("webhook %s answered %s (redirects are not followed)", Mask(raw), status)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("webhook %s answered %s", Mask(raw), status)
	}
	return nil
}

// secrets are the parts of a webhook URL that Mask hides, which no
// string from the receiver may show either.
func secrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return []string{raw}
	}
	out := []string{u.RawQuery}
	if u.User != nil {
		p, _ := u.User.Password()
		out = append(out, u.User.Username(), p)
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if tokenLike(seg) {
			out = append(out, seg)
		}
	}
	return out
}

// client dials only addresses the policy allows, checked on the address
// actually connected to, and follows no redirect.
func (p Policy) client() *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return err
		}
		return p.CheckAddress(ap.Addr())
	}}
	transport := &http.Transport{DialContext: dialer.DialContext, Proxy: nil, TLSHandshakeTimeout: Timeout}
	return &http.Client{Transport: transport, CheckRedirect: credential.NoRedirect}
}
