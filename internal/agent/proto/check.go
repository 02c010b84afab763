package proto

import (
	"fmt"
	"net/url"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/names"
)

// Check checks every setting of ep a spec or a command gives: the one
// place each rule of an agent endpoint is checked (the protocol, the URL,
// the realtime settings, their lengths, the rate, the header). A spec's
// agents, `agent run`, `agent seat` and the harness's and seated runs'
// options call it, as net/http's Server is checked where it starts. The
// error starts with the setting's name in a spec (protocol, endpoint,
// voice, rate ...) and never quotes the credential, which it does not
// check.
func (ep Endpoint) Check() error {
	if err := CheckProtocol(ep.Protocol); err != nil {
		return settingError("protocol", err)
	}
	if err := checkURL(ep.URL); err != nil {
		return settingError("endpoint", err)
	}
	rt := ep.Realtime
	if ep.Protocol != RealtimeName {
		// gemini-live takes a voice and instructions too (its setup's
		// speech config and system instruction), not the rest.
		for _, f := range []struct{ name, value string }{{"voice", rt.Voice}, {"instructions", rt.Instructions},
			{"turn_detection", rt.TurnDetection}, {"realtime_api", rt.API}} {
			if f.value != "" && (ep.Protocol != GeminiLiveName || f.name == "turn_detection" || f.name == "realtime_api") {
				return settingError(f.name, fmt.Errorf("only the realtime protocol takes it, not %s", ep.Protocol))
			}
		}
	}
	if err := CheckRealtimeOptions(RealtimeOptions{TurnDetection: rt.TurnDetection}); err != nil {
		return settingError("turn_detection", err)
	}
	if err := CheckRealtimeOptions(RealtimeOptions{API: rt.API}); err != nil {
		return settingError("realtime_api", err)
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{{"model", rt.Model, limits.MaxAgentSetting}, {"voice", rt.Voice, limits.MaxAgentSetting},
		{"instructions", rt.Instructions, limits.MaxAgentInstructions}} {
		if len(f.value) > f.max {
			return settingError(f.name, fmt.Errorf("%d bytes (at most %d)", len(f.value), f.max))
		}
	}
	rate := ep.Rate
	if rate == 0 {
		rate = 1
	}
	if err := CheckRate(rate); err != nil {
		return settingError("rate", err)
	}
	if ep.AuthHeader != "" && !headerName.Match(ep.AuthHeader) {
		return settingError("auth_header", fmt.Errorf("%q is not an HTTP header name", ep.AuthHeader))
	}
	if ep.AuthQuery != "" && !queryName.Match(ep.AuthQuery) {
		return settingError("auth_query", fmt.Errorf("%q is not a query parameter name (letters, digits, _, . and -)", ep.AuthQuery))
	}
	if ep.AuthQuery != "" && ep.AuthHeader != "" {
		return settingError("auth_query", fmt.Errorf("and auth_header both set: the credential goes in one of them"))
	}
	if len(ep.CAFile) > limits.MaxAgentSetting {
		return settingError("ca_file", fmt.Errorf("%d bytes (at most %d)", len(ep.CAFile), limits.MaxAgentSetting))
	}
	if ep.HandshakeTimeout < 0 || ep.IdleTimeout < 0 {
		return settingError("timeouts", fmt.Errorf("handshake %v, idle %v (want 0 or more)", ep.HandshakeTimeout, ep.IdleTimeout))
	}
	return nil
}

var (
	headerName = names.MustForm(`^[A-Za-z0-9!#$%&'*+.^_|~-]+$`, 128)
	queryName  = names.MustForm(`^[A-Za-z0-9_.-]+$`, 128)
)

// SettingError is an endpoint setting Check refuses: its name in a spec,
// and why.
type SettingError struct {
	Setting string
	Err     error
}

func settingError(setting string, err error) error { return &SettingError{Setting: setting, Err: err} }

func (e *SettingError) Error() string { return e.Setting + ": " + e.Err.Error() }

func (e *SettingError) Unwrap() error { return e.Err }

// checkURL accepts a ws:// or wss:// URL with a host and without user
// information (a credential goes in the Credential, never in the URL);
// the error quotes the URL without its query.
func checkURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("missing (want a ws:// or wss:// URL)")
	}
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2048 {
		return fmt.Errorf("not a URL (want ws://HOST[:PORT]/PATH or wss://...)")
	}
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	switch {
	case u.Scheme != "ws" && u.Scheme != "wss":
		return fmt.Errorf("%q: want a ws:// or wss:// URL", shown)
	case u.Host == "":
		return fmt.Errorf("%q: no host", shown)
	case u.User != nil:
		return fmt.Errorf("%q: has user information; give the credential with credential_env instead", shown)
	}
	return nil
}
