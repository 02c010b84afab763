package config

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
)

// An agent's credential is found by the name its spec gives: the
// environment over the config file's agent_credentials. A missing one is
// one line naming the agent and the variable, never a value.
func TestAgentCredentials(t *testing.T) {
	const fileSecret, envSecret = "from-the-file-123", "from-the-env-456"
	path := writeConfig(t, "agent_credentials:\n  FILE_KEY: "+fileSecret+"\n  BOTH_KEY: "+fileSecret+"\n")
	c, err := LoadConfig(path, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BOTH_KEY", envSecret)
	creds := c.Credentials()
	for name, want := range map[string]string{"FILE_KEY": fileSecret, "BOTH_KEY": envSecret} {
		if got, err := creds(name); err != nil || string(got) != want {
			t.Errorf("%s: %v", name, err)
		}
	}
	s, err := spec.Parse("a.yaml", []byte("agents:\n  - {name: a, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: tiny-agent}, credential_env: FILE_KEY}\n"+
		"  - {name: b, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: tiny-agent}, credential_env: NO_SUCH_KEY}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	err = CheckAgentCredentials(s, creds)
	want := "agents[1] (b).credential_env: environment variable NO_SUCH_KEY is not set, nor agent_credentials.NO_SUCH_KEY in the config file"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	if err != nil && (strings.Contains(err.Error(), fileSecret) || strings.Contains(err.Error(), envSecret)) {
		t.Error("the error quotes a credential")
	}
}
