package inprocess_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
)

// countingStore is a real store that counts puts.
type countingStore struct {
	store.Store
	mu   sync.Mutex
	puts []string
}

func (c *countingStore) Put(ctx context.Context, key string, r io.Reader) error {
	c.mu.Lock()
	c.puts = append(c.puts, key)
	c.mu.Unlock()
	return c.Store.Put(ctx, key, r)
}

// The in-process plan on a corpus with dev data and one without: Resolve
// names the corpora by their manifests' hashes, the bundle holds every
// system on every corpus, the corpus without dev data is scored at
// thresholds transferred from the other one's dev split, and a second
// run on the same store reuses everything and stores nothing.
func TestRunInProcessOnFixtureCorpora(t *testing.T) {
	ctx := context.Background()
	specYAML, dirs := sweepfixture.Spec(t)
	in := sweepfixture.Resolved(t, specYAML)
	for i, c := range in.Corpora {
		if c.Hash != sweepfixture.ManifestHash(t, dirs[i]) || c.Dir != dirs[i] {
			t.Errorf("corpus %s: hash %s, dir %s", c.Name, c.Hash, c.Dir)
		}
	}
	if len(in.Systems) != 2 || in.Systems[0].Hash == "" || in.Systems[0].Hash == in.Systems[1].Hash || in.Systems[0].NeedsModel {
		t.Fatalf("systems %+v", in.Systems)
	}

	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: local}
	a := &activities.Activities{Store: st, Scratch: t.TempDir()}
	id, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := store.GetBytes(ctx, local, keys.Bundle(id, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res bundle.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.BundleID != id || res.Resamples != 20 || res.Seed != 5 || len(res.Evaluations) != 4 {
		t.Fatalf("results: bundle %s, %d resamples, seed %d, %d evaluations", res.BundleID, res.Resamples, res.Seed, len(res.Evaluations))
	}
	source := map[string]evaluate.Evaluation{}
	for _, e := range res.Evaluations {
		if e.Corpus == "withdev" {
			source[e.System] = e
		}
	}
	transferred := 0
	for _, e := range res.Evaluations {
		if e.Corpus != "nodev" {
			continue
		}
		for i, task := range e.Tasks {
			src := source[e.System].Tasks[i]
			if !src.HasOP {
				continue
			}
			transferred++
			if task.TransferredFrom != "withdev" || task.Theta != src.Theta {
				t.Errorf("%s on nodev, %s: theta %v from %q; want %v from withdev", e.System, task.Task, task.Theta, task.TransferredFrom, src.Theta)
			}
		}
	}
	if transferred == 0 {
		t.Fatal("no operating point was transferred")
	}
	// Two corpora of two conversations (three files each) and a manifest,
	// 2 models x 4 conversations of model outputs, 2 systems x 4
	// conversations x 2 tasks of tracks, 4 evaluations, and the bundle, its
	// manifest last.
	count := putsByKind(st.puts)
	if count["corpora"] != 14 || count["model-outputs"] != 8 || count["tracks"] != 16 || count["evaluations"] != 4 || count["bundles"] < 2 ||
		st.puts[len(st.puts)-1] != keys.Bundle(id, "manifest.json") {
		t.Errorf("stored %v, the last %s", count, st.puts[len(st.puts)-1])
	}
	st.puts = nil

	again, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil || again != id {
		t.Fatalf("second run: %s, %v; want %s", again, err, id)
	}
	if len(st.puts) != 0 {
		t.Errorf("a second run stored %q", st.puts)
	}
}

// putsByKind counts stored keys by their top-level prefix.
func putsByKind(puts []string) map[string]int {
	count := map[string]int{}
	for _, k := range puts {
		kind, _, _ := strings.Cut(k, "/")
		count[kind]++
	}
	return count
}

// A sweep of new floor variants of models an earlier sweep ran (another
// ramp, another gate threshold) runs no model: its model stages find every
// output stored, and only its tracks, evaluations and bundle are new.
func TestSweepOfNewFloorVariantsRunsNoModel(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: local}
	a := &activities.Activities{Store: st, Scratch: t.TempDir()}
	if _, err := inprocess.Run(ctx, sweepfixture.Resolved(t, specYAML), a, activities.Admission{}); err != nil {
		t.Fatal(err)
	}
	st.puts = nil
	variants := strings.Replace(specYAML, `systems:
  - {name: rms, builtin: rms}
  - {name: webrtcvad, builtin: webrtcvad, params: {mode: "3"}}`, `systems:
  - {name: rms-endpointer-ramp-1, builtin: rms-endpointer, params: {eot_ramp_s: 1}}
  - {name: rms-gate-0.6, builtin: rms, params: {speech_threshold: 0.6}}
  - {name: webrtcvad-endpointer-ramp-3, builtin: webrtcvad-endpointer, params: {mode: 3, eot_ramp_s: 3}}`, 1)
	var mu sync.Mutex
	runs := 0
	_, err = inprocess.RunObserved(ctx, sweepfixture.Resolved(t, variants), a, activities.Admission{}, func(name string, in any) {
		if name == "RunModel" {
			mu.Lock()
			runs++
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	count := putsByKind(st.puts)
	if count["model-outputs"] != 0 || count["tracks"] != 24 || count["evaluations"] != 6 {
		t.Errorf("the second sweep stored %v; want no model output, 3 systems' tracks and evaluations", count)
	}
	if runs == 0 {
		t.Error("the second sweep planned no model stage")
	}
}

// Upload puts the local corpora where IngestLocal would and leaves the
// input holding store keys only; the plan run from those keys gives the
// same bundle and the same evaluations, byte for byte, as the plan run
// from the local folders.
func TestUploadThenRunMatchesLocalRun(t *testing.T) {
	ctx := context.Background()
	specYAML, dirs := sweepfixture.Spec(t)
	fromDirs := sweepfixture.Resolved(t, specYAML)
	uploaded := sweepfixture.Resolved(t, specYAML)
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := activities.Upload(ctx, st, &uploaded, detect.Runtime{}); err != nil {
		t.Fatal(err)
	}
	for i, c := range uploaded.Corpora {
		if c.Dir != "" || c.Hash != sweepfixture.ManifestHash(t, dirs[i]) || c.Prefix != keys.Corpus(c.Hash) {
			t.Errorf("uploaded corpus %+v", c)
		}
		raw, err := store.GetBytes(ctx, st, c.Prefix+"/"+corpus.ManifestName)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(filepath.Join(dirs[i], corpus.ManifestName)); string(raw) != string(want) {
			t.Errorf("%s: stored manifest differs from the local one", c.Name)
		}
	}
	for _, s := range uploaded.Systems {
		if s.Dir != "" || len(s.Files) != 0 {
			t.Errorf("system %s after upload: dir %q, files %v", s.Name, s.Dir, s.Files)
		}
	}
	id, err := inprocess.Run(ctx, uploaded, &activities.Activities{Store: st, Scratch: t.TempDir()}, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}

	other, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id2, err := inprocess.Run(ctx, fromDirs, &activities.Activities{Store: other, Scratch: t.TempDir()}, activities.Admission{})
	if err != nil || id2 != id {
		t.Fatalf("from the folders: bundle %s, %v; want %s", id2, err, id)
	}
	keys, err := st.List(ctx, "evaluations/")
	if err != nil || len(keys) != 4 {
		t.Fatalf("evaluations %q, %v", keys, err)
	}
	for _, k := range keys {
		a, err1 := store.GetBytes(ctx, st, k)
		b, err2 := store.GetBytes(ctx, other, k)
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s differs: %v, %v", k, err1, err2)
		}
	}
}

// Task queues and concurrency are how a sweep runs: the same sweep moved
// to other queues and run wider has the same workflow id and writes the
// same bundle, byte for byte but for the manifest's creation time.
func TestRunSettingsKeepTheRunAndItsBundle(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	moved := strings.Replace(specYAML, "concurrency: 2\n", "concurrency: 5\nqueues: {cpu: lab-cpu, gpu: lab-gpu, synth: lab-synth}\n", 1)
	var ids [2]string
	var files [2]map[string]string
	for i, y := range []string{specYAML, moved} {
		in := sweepfixture.Resolved(t, y)
		wf, err := in.Spec.WorkflowID()
		if err != nil {
			t.Fatal(err)
		}
		local, err := store.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		id, err := inprocess.Run(ctx, in, &activities.Activities{Store: local, Scratch: t.TempDir()}, activities.Admission{})
		if err != nil {
			t.Fatal(err)
		}
		ids[i], files[i] = wf+" "+id, bundleFiles(t, local, id)
	}
	if ids[0] != ids[1] {
		t.Fatalf("workflow and bundle %s, moved to other queues %s", ids[0], ids[1])
	}
	if len(files[0]) < 2 || !maps.Equal(files[0], files[1]) {
		t.Errorf("the bundles differ: %d and %d files", len(files[0]), len(files[1]))
	}
}

// bundleFiles is every file of bundle id, the manifest without its
// creation time.
func bundleFiles(t *testing.T, st store.Store, id string) map[string]string {
	t.Helper()
	ctx := context.Background()
	names, err := st.List(ctx, keys.Bundle(id, ""))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, key := range names {
		data, err := store.GetBytes(ctx, st, key)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(key, "/manifest.json") {
			var m bundle.Manifest
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			m.Created = ""
			data, _ = json.Marshal(m)
		}
		out[key] = string(data)
	}
	return out
}
