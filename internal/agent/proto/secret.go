package proto

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/floorbench/floorbench/internal/redact"
)

// header is the HTTP header of the WebSocket handshake: the credential in
// its header, and extra.
func (ep Endpoint) header(extra http.Header) http.Header {
	h := http.Header{}
	for k, v := range extra {
		h[k] = v
	}
	if ep.Credential == "" || ep.AuthQuery != "" {
		return h
	}
	if ep.AuthHeader == "" {
		h.Set("Authorization", "Bearer "+string(ep.Credential))
	} else {
		h.Set(ep.AuthHeader, string(ep.Credential))
	}
	return h
}

// credentialURL is the endpoint's URL with the credential added as the
// query parameter AuthQuery names (the URL as it is when it names none).
func (ep Endpoint) credentialURL() (string, error) {
	if ep.AuthQuery == "" || ep.Credential == "" {
		return ep.URL, nil
	}
	u, err := url.Parse(ep.URL)
	if err != nil {
		return "", fmt.Errorf("agent endpoint URL %s does not parse", redactURL(ep.URL))
	}
	q := u.Query()
	q.Set(ep.AuthQuery, string(ep.Credential))
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// where names the endpoint in errors and logs: the protocol and the URL
// without its query or user, which may hold credentials.
func (ep Endpoint) where() string {
	return ep.Protocol + " agent at " + redactURL(ep.URL)
}

// redactURL is raw without user information, query and fragment.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// scrub is text from the agent, or a library's error about it, made fit
// to print by redact.Peer: the full URL shown without its query or user,
// and the credential, the URL's query and its user information masked.
// Every string the client takes from an agent goes through it where it
// comes in.
func (ep Endpoint) scrub(text string) string {
	if ep.URL != "" {
		// The WebSocket library names the URL in its http form.
		httpForm := strings.Replace(strings.Replace(ep.URL, "ws://", "http://", 1), "wss://", "https://", 1)
		for _, u := range []string{ep.URL, httpForm} {
			text = strings.ReplaceAll(text, u, redactURL(u))
		}
	}
	return redact.Peer(text, ep.secrets()...)
}

// secrets are what the client sends an agent that no output may show:
// the credential, and the URL's user information and query values but
// the model's (those of fewer than minURLSecret bytes, such as v=1, would
// mask ordinary words).
func (ep Endpoint) secrets() []string {
	out := []string{string(ep.Credential)}
	u, err := url.Parse(ep.URL)
	if err != nil {
		return out
	}
	var parts []string
	if u.User != nil {
		p, _ := u.User.Password()
		parts = append(parts, u.User.Username(), p)
	}
	for k, vs := range u.Query() {
		if k != "model" {
			parts = append(parts, vs...)
		}
	}
	for _, p := range parts {
		if len(p) >= minURLSecret {
			out = append(out, p)
		}
	}
	return out
}

// minURLSecret is the length from which a part of the URL is taken for a
// credential.
const minURLSecret = 8
