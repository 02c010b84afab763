// Package credential holds what every client that sends a credential
// shares: the Secret type that never prints, reading one from the
// environment, and the redirect policy that keeps it from an origin the
// user never named. The agent protocol clients, the chat and speech
// clients of the generator and the webhooks use it.
package credential

import (
	"fmt"
	"net/http"
	"os"
)

// Secret is a credential. It is sent in a header and never printed: its
// String, GoString and JSON forms are "[redacted]".
type Secret string

const redacted = "[redacted]"

func (Secret) String() string   { return redacted }
func (Secret) GoString() string { return redacted }

// MarshalJSON keeps a Secret out of JSON output.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// FromEnv reads a credential from the environment variable name; the
// error names the variable, never a value.
func FromEnv(name string) (Secret, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return "", fmt.Errorf("the agent's credential: environment variable %s is not set", name)
	}
	return Secret(v), nil
}

// NoRedirect is the CheckRedirect of every HTTP and WebSocket client
// floorbench has (the agent client, the chat and speech clients,
// webhooks): a redirect is not followed, and its 3xx answer is the
// answer. A client sends a credential, and a redirect would carry it to
// an origin the user never named (docs/operations.md#redirects).
func NoRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
