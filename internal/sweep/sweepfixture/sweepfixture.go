// Package sweepfixture is a small sweep over two native corpora on disk,
// one with dev data and one without, for the tests of the packages that
// resolve, preview, run and submit sweeps. It imports sweep, spec, detect
// and audit/auditfixture.
package sweepfixture

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// Spec writes two small corpora under a test folder (withdev, and nodev
// with a test split only) and returns a sweep spec of two acoustic
// systems over them, and the corpora's folders.
func Spec(t testing.TB) (specYAML string, dirs [2]string) {
	t.Helper()
	root := t.TempDir()
	dirs = [2]string{filepath.Join(root, "withdev"), filepath.Join(root, "nodev")}
	designs := []auditfixture.Design{
		auditfixture.Small(),
		{Test: 2, Claims: []float64{4.0}, Others: []float64{0.3}},
	}
	for i, d := range designs {
		if err := auditfixture.Write(dirs[i], d, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	specYAML = `name: inprocess
corpora:
  - {name: withdev, path: ` + dirs[0] + `}
  - {name: nodev, path: ` + dirs[1] + `}
systems:
  - {name: rms, builtin: rms}
  - {name: webrtcvad, builtin: webrtcvad, params: {mode: "3"}}
bootstrap: {resamples: 20, seed: 5}
concurrency: 2
`
	return specYAML, dirs
}

// Resolved is specYAML parsed and resolved (sweep.Resolve) with the
// default detector runtime.
func Resolved(t testing.TB, specYAML string) sweep.Input {
	t.Helper()
	s, err := spec.Parse("inprocess", []byte(specYAML), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// ManifestHash is the content hash a corpus folder is stored under,
// computed here on its own from the manifest's bytes: the first 16 bytes
// of their SHA-256, in hex (docs/architecture.md#identities-and-versions).
func ManifestHash(t testing.TB, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, corpus.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}
