package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A config file is read strictly: an unknown key is an error naming it and
// the file (a typo in store_dir once listed another store), a value of the
// wrong type names its key and never echoes the value (it may be a
// secret), and every message is one line.
func TestConfigFileErrors(t *testing.T) {
	const secret = "s3cr3t-Value-42"
	cases := []struct{ name, file, want string }{
		{"unknown key", "store_dr: /tmp/x\n", `line 1: unknown key "store_dr"`},
		{"unknown limit", "limits:\n  resampels: 5\n", `line 2: unknown key "limits.resampels"`},
		{"bool secret", "temporal_tls: " + secret + "\n", "line 1: temporal_tls: want true or false"},
		{"secret as a list", "s3_secret_key: [" + secret + "]\n", "line 1: s3_secret_key: want a string"},
		{"limit not a number", "limits: {resamples: " + secret + "}\n", "line 1: limits.resamples: want an integer"},
		{"credentials as a list", "agent_credentials: [" + secret + "]\n", "line 1: agent_credentials: want a mapping of names to strings"},
		{"limit zero", "limits: {resamples: 0}\n", "limits.resamples: must be > 0"},
		{"key twice", "store_dir: a\nstore_dir: b\n", `line 2: key "store_dir" given twice`},
		{"not a mapping", "- a\n- b\n", "line 1: want a mapping of keys to values"},
		{"two documents", "store_dir: /a\n---\nstore_dr: /b\n", "line 2: a config file is one YAML document"},
		{"syntax", "a: [\n  b\n", "line 2: did not find expected ',' or ']'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeConfig(t, c.file)
			_, err := LoadConfig(path, true)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "config "+path+": ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || strings.Contains(msg, secret) {
				t.Errorf("got  %q\nwant config %s: ...%s, one line, without the value", msg, path, c.want)
			}
		})
	}
}

// The limits section raises a limit; FLOORBENCH_LIMIT_* overrides it.
func TestConfigLimits(t *testing.T) {
	path := writeConfig(t, "store_dir: /tmp/s\nlimits:\n  resamples: 2000000\n  input_bytes: 4294967296\n")
	c, err := LoadConfig(path, true)
	want := limits.Default()
	want.Resamples, want.InputBytes = 2_000_000, 4<<30
	if err != nil || c.Limits != want || c.StoreDir != "/tmp/s" {
		t.Fatalf("%+v, %v", c.Limits, err)
	}
	t.Setenv("FLOORBENCH_LIMIT_RESAMPLES", "300")
	if c, err = LoadConfig(path, true); err != nil || c.Limits.Resamples != 300 {
		t.Fatalf("env over the file: %d, %v", c.Limits.Resamples, err)
	}
}

// The quickstart's own dev server gets neither the API key nor TLS meant
// for a remote Temporal: it would refuse the TLS handshake.
func TestDevServerConfigDropsRemoteCredentials(t *testing.T) {
	remote := Config{TemporalAddress: "ns.tmprl.cloud:7233", Namespace: "ns", APIKey: "key", TLS: true, StoreDir: "/s"}
	got := remote.DevServer("127.0.0.1:7777")
	want := Config{TemporalAddress: "127.0.0.1:7777", Namespace: "default", StoreDir: "/s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// The generative backends' API keys come from the file, the environment
// over it, and never print.
func TestGenerativeSecrets(t *testing.T) {
	path := writeConfig(t, "dialogue_api_key: sk-file-dialogue\nvoices_api_key: sk-file-voices\n")
	t.Setenv("FLOORBENCH_VOICES_API_KEY", "sk-env-voices")
	c, err := LoadConfig(path, true)
	if err != nil {
		t.Fatal(err)
	}
	s := c.GenerativeSecrets()
	if s.Dialogue != "sk-file-dialogue" || s.Voices != "sk-env-voices" {
		t.Fatalf("secrets: dialogue from the file, voices from the environment; got other values")
	}
	if shown := fmt.Sprintf("%v %+v %#v", s, s, s); strings.Contains(shown, "sk-") {
		t.Fatalf("secrets print as %s", shown)
	}
}
