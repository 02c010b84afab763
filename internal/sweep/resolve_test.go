package sweep_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/version"
)

// Resolve refuses an unknown system family, a bad parameter and a corpus
// folder without a manifest, naming the entry.
func TestResolveErrors(t *testing.T) {
	_, dirs := sweepfixture.Spec(t)
	for _, c := range []struct{ yaml, says string }{
		{"systems:\n  - {name: x, builtin: nope}\n", "systems[0] (x): "},
		{"systems:\n  - {name: x, builtin: webrtcvad, params: {loudness: \"1\"}}\n", "systems[0] (x): "},
		{"systems:\n  - {name: x, spec: " + filepath.Join(t.TempDir(), "absent.yaml") + "}\n", "systems[0] (x): "},
	} {
		s, err := spec.Parse("bad", []byte("name: bad\ncorpora:\n  - {name: c, path: "+dirs[0]+"}\n"+c.yaml), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sweep.Resolve(s, detect.Runtime{}); err == nil || !strings.HasPrefix(err.Error(), c.says) {
			t.Errorf("%q: %v; want an error starting %q", c.yaml, err, c.says)
		}
	}
	s, err := spec.Parse("bad", []byte("name: bad\ncorpora:\n  - {name: c, path: "+t.TempDir()+"}\nsystems:\n  - {name: rms, builtin: rms}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Resolve(s, detect.Runtime{}); err == nil || !strings.HasPrefix(err.Error(), "corpora[0] (c): ") {
		t.Errorf("a folder without a corpus: %v", err)
	}
}

// Resolve replaces what the submitting machine holds by what a worker
// needs: a local corpus by its absolute folder and manifest hash, a
// system spec file by its YAML and folder, a builtin by its spec with the
// parameters set; the spec's hash is that of the normalised spec, and
// resolving the same spec again gives the same input.
func TestResolveNamesWhatWorkersNeed(t *testing.T) {
	_, dirs := sweepfixture.Spec(t)
	sysDir := t.TempDir()
	sysFile := filepath.Join(sysDir, "ep.yaml")
	const sysYAML = "family: rms-endpointer\n"
	if err := os.WriteFile(sysFile, []byte(sysYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	specYAML := "name: resolve\ncorpora:\n  - {name: local, path: " + dirs[0] + "}\n  - {name: stored, s3: corpora/abc}\n" +
		"  - {name: gen, generate: {preset: tiny, seed: 3}}\nsystems:\n  - {name: ep, spec: " + sysFile + "}\n" +
		"  - {name: vad, builtin: webrtcvad, params: {mode: \"3\"}}\n  - {name: vad0, builtin: webrtcvad}\n"
	resolve := func() (sweep.Input, *spec.Sweep) {
		s, err := spec.Parse("resolve", []byte(specYAML), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		in, err := sweep.Resolve(s, detect.Runtime{})
		if err != nil {
			t.Fatal(err)
		}
		return in, s
	}
	in, s := resolve()
	local, stored, gen := in.Corpora[0], in.Corpora[1], in.Corpora[2]
	if local.Dir != dirs[0] || local.Hash != sweepfixture.ManifestHash(t, dirs[0]) || s.Corpora[0].Hash != local.Hash {
		t.Errorf("local corpus %+v", local)
	}
	if stored.Prefix != "corpora/abc" || stored.Dir != "" || gen.Generate == nil || gen.Generate.Seed != 3 {
		t.Errorf("stored %+v, generated %+v", stored, gen)
	}
	ep, vad, vad0 := in.Systems[0], in.Systems[1], in.Systems[2]
	if string(ep.YAML) != sysYAML || ep.Dir != sysDir || s.Systems[0].SpecYAML != sysYAML || ep.NeedsModel {
		t.Errorf("system from a spec file %+v", ep)
	}
	if vad.Hash == vad0.Hash || !strings.Contains(string(vad.YAML), "mode") || vad.Hash == "" {
		t.Errorf("builtin with a parameter %+v, without %+v", vad, vad0)
	}
	want, err := s.Hash()
	if err != nil || in.SpecHash != want || in.CodeVersion != version.Code() {
		t.Errorf("spec hash %s (want %s, %v), code version %q", in.SpecHash, want, err, in.CodeVersion)
	}
	if again, _ := resolve(); !reflect.DeepEqual(again, in) {
		t.Errorf("resolved twice:\n%+v\n%+v", in, again)
	}
}

// floorbench's shipped detector enters a sweep as a spec file like any
// other: it needs a model, so its inference goes to the GPU queue, and
// its model hash is its shipped file's.
func TestShippedFloorgruResolvesToTheGPUQueue(t *testing.T) {
	_, dirs := sweepfixture.Spec(t)
	specFile, err := filepath.Abs(filepath.Join("..", "..", "models", "floorgru", "floorgru.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse("shipped", []byte("name: shipped\ncorpora:\n  - {name: c, path: "+dirs[0]+"}\nsystems:\n  - {name: floorgru, spec: "+specFile+"}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	in, err := sweep.Resolve(s, detect.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if sys := in.Systems[0]; !sys.NeedsModel || sys.ModelHash == "" || sys.Dir != filepath.Dir(specFile) {
		t.Errorf("floorgru resolved as %+v; want a model system (GPU queue) with its model hash, read from %s", sys, filepath.Dir(specFile))
	}
}
