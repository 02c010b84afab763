package proto

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"unicode"
)

// Secret is a credential. It is sent in a header and never printed: its
// String, GoString and JSON forms are "[redacted]".
type Secret string

const redacted = "[redacted]"

func (Secret) String() string   { return redacted }
func (Secret) GoString() string { return redacted }

// MarshalJSON keeps a Secret out of JSON output.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// CredentialFromEnv reads a credential from the environment variable name;
// the error names the variable, never a value.
func CredentialFromEnv(name string) (Secret, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", fmt.Errorf("the agent's credential: environment variable %s is not set", name)
	}
	return Secret(v), nil
}

// header is the HTTP header of the WebSocket handshake: the credential in
// its header, and extra.
func (ep Endpoint) header(extra http.Header) http.Header {
	h := http.Header{}
	for k, v := range extra {
		h[k] = v
	}
	if ep.Credential == "" {
		return h
	}
	if ep.AuthHeader == "" {
		h.Set("Authorization", "Bearer "+string(ep.Credential))
	} else {
		h.Set(ep.AuthHeader, string(ep.Credential))
	}
	return h
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

// maxQuoted bounds the text of an agent's message quoted in an error.
const maxQuoted = 200

// scrub makes text from outside (an agent's error message, a library
// error naming the URL) fit to print: the credential and the full URL
// removed, control characters dropped, cut to maxQuoted runes.
func (ep Endpoint) scrub(text string) string {
	if ep.Credential != "" {
		text = strings.ReplaceAll(text, string(ep.Credential), redacted)
	}
	if ep.URL != "" {
		// The WebSocket library names the URL in its http form.
		httpForm := strings.Replace(strings.Replace(ep.URL, "ws://", "http://", 1), "wss://", "https://", 1)
		for _, u := range []string{ep.URL, httpForm} {
			text = strings.ReplaceAll(text, u, redactURL(u))
		}
	}
	return clean(text)
}

// clean drops control characters and cuts text to maxQuoted runes.
func clean(text string) string {
	var b strings.Builder
	n := 0
	for _, r := range text {
		if n == maxQuoted {
			b.WriteString("...")
			break
		}
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
