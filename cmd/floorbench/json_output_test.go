package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/ingest/turnbench/tbfixture"
)

// TestJSONOutputOfCommandsThatWrite runs the commands that write files
// with -o json and checks that what they report (paths, counts, hashes)
// matches what is on disk.
func TestJSONOutputOfCommandsThatWrite(t *testing.T) {
	dir := t.TempDir()
	dev, test, err := tbfixture.WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "corpus")
	var ingested writtenCorpus
	runJSON(t, &ingested, "corpus", "ingest", "turnbench", "--parquet", dev, "--parquet", test, "--out", out, "-o", "json")
	if want := (writtenCorpus{out, "turnbench", 3, 1, sha256File(t, filepath.Join(out, "corpus.json")), nil}); ingested != want {
		t.Errorf("ingest -o json: %+v, want %+v", ingested, want)
	}

	var checked checkResult
	runJSON(t, &checked, "corpus", "check", out, "-o", "json")
	if checked.Corpus != out || checked.Kind != "turnbench" || checked.Conversations != 3 || checked.Annotations == 0 || len(checked.Problems) != 0 {
		t.Errorf("check -o json: %+v", checked)
	}

	probs := filepath.Join(dir, "probs")
	var detected detectResult
	runJSON(t, &detected, "detect", "--system", "rms", "--corpus", out, "--split", "dev", "--out", probs, "-o", "json")
	if detected.System != "rms" || len(detected.SystemHash) != 32 || detected.Split != "dev" || detected.Conversations != 2 || len(detected.Files) != 2 {
		t.Fatalf("detect -o json: %+v", detected)
	}
	for i, name := range []string{"probs-eot.json", "probs-int.json"} {
		path := filepath.Join(probs, name)
		if f := detected.Files[i]; f.Path != path || f.SHA256 != sha256File(t, path) {
			t.Errorf("detect -o json file %d: %+v, want %s with its sha256", i, f, path)
		}
	}
}

// runJSON runs floorbench and decodes its stdout into v, strictly.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v: stdout is not the JSON result: %v\n%s", args, err, stdout)
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestQuickstartJSON runs a one-system quickstart with -o json and checks
// that the bundle it names is where it says, with the corpora and
// leaderboards it reports.
func TestQuickstartJSON(t *testing.T) {
	temporalTool(t)
	tmp := t.TempDir()
	spec := writeFile(t, tmp, "one.yaml", `name: one-system
corpora:
  - {name: mptb-tiny, generate: {preset: tiny, seed: 1}}
systems:
  - {name: rms, builtin: rms}
bootstrap: {resamples: 10, seed: 1}
`)
	var res struct {
		BundleID     string `json:"bundle_id"`
		Location     string
		Corpora      []struct{ Name, Kind string }
		Leaderboards []struct {
			Corpus string
			Task   string
		}
	}
	// The spec as the argument, as -f takes it.
	stdout, stderr, code := run(t, "quickstart", spec, "--store-dir", filepath.Join(tmp, "store"), "-o", "json")
	if code != 0 {
		t.Fatalf("quickstart -o json: exit %d\n%s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if res.BundleID == "" || len(res.Corpora) != 1 || res.Corpora[0].Name != "mptb-tiny" || res.Corpora[0].Kind != "mptb" || len(res.Leaderboards) != 2 {
		t.Fatalf("quickstart -o json: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(res.Location, "report.md")); err != nil {
		t.Errorf("location %s: %v", res.Location, err)
	}
	for _, lb := range res.Leaderboards {
		if lb.Corpus != "mptb-tiny" {
			t.Errorf("leaderboard of corpus %q", lb.Corpus)
		}
	}
}
