package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzLoadConfig feeds the config file parser arbitrary files: a rejected
// file gives one line naming the file, an accepted one written back as
// YAML loads to the same configuration.
func FuzzLoadConfig(f *testing.F) {
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "FLOORBENCH_") {
			f.Skip("FLOORBENCH_* variables are set; they would override the file")
		}
	}
	f.Add([]byte("temporal_address: temporal.example:7233\nnamespace: lab\ntemporal_tls: true\ns3_endpoint: minio:9000\ns3_bucket: runs\nstore_dir: /srv/store\n"))
	f.Add([]byte("temporal_tls: maybe\n"))
	f.Add([]byte("s3_secret_key: [1, 2]\n"))
	f.Add([]byte("agent_credentials: {HOSTED_KEY: sk-1, OTHER: 2}\n"))
	f.Add([]byte("agent_credentials: {}\n"))
	f.Add([]byte("temporal_address: 127.0.0.1:7233\nlimits: {resamples: 5}\n"))
	f.Add([]byte("limits: [1, 2]\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("---\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(path, true)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, path) {
				t.Fatalf("an error must be one line naming the file: %q", msg)
			}
			return
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := LoadConfig(path, true)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("written back: %v\n%s\n%+v\n%+v", err, out, c, again)
		}
	})
}
