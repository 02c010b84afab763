package temporalclient_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// A sweep submitted from one working directory runs on workers in other
// directories that share only the store: submit uploads the local corpus
// and the system's model file, the submitter's folder is gone before any
// worker starts, and the workers poll the queues the spec names.
func TestSubmitFromAnotherMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep against real servers: skipped with -short")
	}
	model := testenv.Path(t, detect.SileroModelPath, "onnx")
	testenv.Path(t, detect.OnnxRuntimeLibraryPath, "onnx")
	m := testenv.StartMinIO(t)
	ctx := deadline(t)
	h := newHarness(t, m, "anywhere")

	laptop := t.TempDir()
	if err := auditfixture.Write(filepath.Join(laptop, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	onnx, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	writeAt(t, filepath.Join(laptop, "models", "vad.onnx"), string(onnx))
	writeAt(t, filepath.Join(laptop, "vad.yaml"), "family: silero\nmodel: {path: models/vad.onnx}\n")
	writeAt(t, filepath.Join(laptop, "sweep.yaml"), `name: anywhere
corpora:
  - {name: local, path: corpus}
systems:
  - {name: rms, builtin: rms}
  - {name: vad, spec: vad.yaml}
bootstrap: {resamples: 50, seed: 1}
queues: {cpu: lab-cpu, gpu: lab-gpu, synth: lab-synth}
`)
	submit := exec.CommandContext(ctx, binary(t), "submit", "-f", "sweep.yaml", "-o", "json", "--config", "")
	submit.Dir = laptop
	submit.Env = append(os.Environ(), h.env()...)
	var stdout, stderr bytes.Buffer
	submit.Stdout, submit.Stderr = &stdout, &stderr
	if err := submit.Run(); err != nil {
		t.Fatalf("submit: %v: %s", err, stderr.String())
	}
	var submitted struct {
		ID string `json:"workflow_id"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &submitted); err != nil || submitted.ID == "" {
		t.Fatalf("submit printed %q: %v", stdout.String(), err)
	}
	// Nothing of the submitting machine is left for a worker to read.
	if err := os.RemoveAll(laptop); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		h.startWorkerIn(t.TempDir(), "--queues", "cpu=lab-cpu,synth=lab-synth,gpu=lab-gpu")
	}
	st := h.wait(ctx, submitted.ID, nil)

	s3 := h.bucketStore()
	data, err := store.GetBytes(ctx, s3, keys.Bundle(st.BundleID, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	var systems []string
	for _, e := range res.Evaluations {
		systems = append(systems, e.System+"@"+e.Corpus)
		if len(e.Tasks) != 2 || e.Tasks[0].Test == nil {
			t.Errorf("%s on %s: no test results", e.System, e.Corpus)
		}
	}
	if !slices.Equal(systems, []string{"rms@local", "vad@local"}) {
		t.Fatalf("evaluations %v", systems)
	}
	keys, err := s3.List(ctx, "inputs/")
	if err != nil || len(keys) != 1 {
		t.Fatalf("uploaded inputs %v, %v; want the one model", keys, err)
	}
	if got, _ := store.GetBytes(ctx, s3, keys[0]); !bytes.Equal(got, onnx) {
		t.Fatalf("%s is not the model", keys[0])
	}
	corpora, err := s3.List(ctx, "corpora/")
	if err != nil || !slices.ContainsFunc(corpora, func(k string) bool { return strings.HasSuffix(k, "/corpus.json") }) {
		t.Fatalf("the local corpus was not uploaded: %v, %v", corpora, err)
	}
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
