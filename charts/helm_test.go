package charts

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/cluster/clustertest"
	"github.com/floorbench/floorbench/internal/testenv"
)

// kubeVersion is the Kubernetes release the chart is rendered for, validated
// against and installed into; scripts/setup.sh builds the API server and the
// schemas of the same release (KUBE_VERSION there).
const kubeVersion = "v1.37.2"

// The release that manifests/ and the golden files are rendered as.
const (
	chartDir  = "floorbench"
	release   = "floorbench"
	namespace = "floorbench"
)

var update = flag.Bool("update", false, "rewrite the golden files and manifests/ from the chart")

func TestMain(m *testing.M) { clustertest.Main(m) }

// helm runs the helm binary of scripts/setup.sh with its state in a
// temporary home, so that tests never read or write the user's.
type helm struct {
	t   *testing.T
	bin string
	env []string
}

func newHelm(t *testing.T) *helm {
	t.Helper()
	home := t.TempDir()
	return &helm{t: t, bin: testenv.Tool(t, "helm", "helm"), env: append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)}
}

// run returns helm's standard output, or an error that carries what it
// printed on standard error.
func (h *helm) run(args ...string) ([]byte, error) {
	cmd := exec.Command(h.bin, args...)
	cmd.Env = h.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("helm %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// template renders the chart as the test release with a values file.
func (h *helm) template(valuesFile string) []byte {
	h.t.Helper()
	out, err := h.run("template", release, chartDir, "--namespace", namespace,
		"--kube-version", kubeVersion, "--values", valuesFile)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// valueCases are the values files the chart is tested with, by name.
func valueCases(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("testdata/values/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no values files in testdata/values: %v", err)
	}
	cases := map[string]string{}
	for _, f := range files {
		cases[strings.TrimSuffix(filepath.Base(f), ".yaml")] = f
	}
	return cases
}

// writeTemp writes content to a file in a temporary directory.
func writeTemp(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./charts -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the chart renders (run go test ./charts -update and review the diff):\n%s",
			path, firstDifference(want, got))
	}
}

// firstDifference shows the first line where want and got part.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}
