package inprocess_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/inprocess"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep/sweepfixture"
	"github.com/floorbench/floorbench/internal/testenv"
)

// Issue 42, item 1: a model output changed to other valid values, a track
// whose probabilities were zeroed and an evaluation changed by a byte, in
// a store whose bundle and other evaluations were then removed, are never
// used: the rerun finds each one's bytes differ from its recorded sum,
// computes it again over the changed bytes, and issues the same bundle
// with the same results.json as the clean store, byte for byte. A stored
// bundle whose results.json changed is built again.
func TestTamperedOutputsAreComputedAgain(t *testing.T) {
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	in := sweepfixture.Resolved(t, specYAML)
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := store.Summing{Store: local, Summed: keys.Summed, SumKey: keys.Sum, Named: keys.Named}
	a := &activities.Activities{Store: st, Scratch: t.TempDir()}
	id, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	clean, err := store.GetBytes(ctx, st, keys.BundleResults(id))
	if err != nil {
		t.Fatal(err)
	}

	outputs, err := local.List(ctx, "model-outputs/")
	if err != nil || len(outputs) == 0 {
		t.Fatalf("model outputs %v, %v", outputs, err)
	}
	output := outputs[0] // model-outputs/<model>/<corpus>/<conv>.bin
	parts := strings.Split(strings.TrimSuffix(output, ".bin"), "/")
	model, corpusHash, conv := parts[1], parts[2], parts[3]
	var mapped []string // the tracks made from output: removed, so the rerun maps it again
	for _, s := range in.Systems {
		if s.ModelHash == model {
			mapped = append(mapped, keys.Track(s.Hash, corpusHash, conv, "eot"), keys.Track(s.Hash, corpusHash, conv, "int"))
		}
	}
	tracks, err := local.List(ctx, "tracks/")
	if err != nil {
		t.Fatal(err)
	}
	var zeroed string
	for _, k := range tracks {
		if !strings.Contains(k, "/"+conv+".") {
			zeroed = k
			break
		}
	}
	evaluations, err := local.List(ctx, "evaluations/")
	if err != nil || len(evaluations) < 2 {
		t.Fatalf("evaluations %v, %v", evaluations, err)
	}
	original := map[string][]byte{}
	for _, k := range []string{output, zeroed, evaluations[0]} {
		if original[k], err = store.GetBytes(ctx, local, k); err != nil {
			t.Fatal(err)
		}
	}
	put := func(key string, data []byte) {
		t.Helper()
		if bytes.Equal(data, original[key]) {
			t.Fatalf("%s is unchanged", key)
		}
		if err := store.PutBytes(ctx, local, key, data); err != nil { // under the sums: as a hand would
			t.Fatal(err)
		}
	}
	put(output, otherValues(t, original[output]))
	put(zeroed, zeroedProbs(t, original[zeroed]))
	changed := bytes.Clone(original[evaluations[0]])
	changed[len(changed)/2] ^= 1
	put(evaluations[0], changed)
	for _, k := range append(mapped, evaluations[1:]...) {
		if err := os.Remove(filepath.Join(local.Root(), filepath.FromSlash(k))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(local.Root(), "bundles")); err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	a.Log = slog.New(slog.NewTextHandler(&log, nil))
	again, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil || again != id {
		t.Fatalf("rerun: bundle %s, %v; want %s", again, err, id)
	}
	// Each recomputation is said, naming its key.
	for _, k := range []string{output, zeroed, evaluations[0]} {
		if !strings.Contains(log.String(), `msg="computing a corrupt stored output again" key=`+k+" ") {
			t.Errorf("the rerun's log does not name %s:\n%s", k, log.String())
		}
	}
	results, err := store.GetBytes(ctx, st, keys.BundleResults(again))
	if err != nil || !bytes.Equal(results, clean) {
		t.Errorf("results.json after the rerun differs from the clean store's (%v)", err)
	}
	for k, want := range original {
		if got, err := store.GetBytes(ctx, st, k); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s was not computed again: %v", k, err)
		}
	}

	// A byte of the stored bundle's results.json: the bundle is built again.
	changed = bytes.Clone(clean)
	changed[len(changed)/2] ^= 1
	put(keys.BundleResults(id), changed)
	if again, err = inprocess.Run(ctx, in, a, activities.Admission{}); err != nil || again != id {
		t.Fatalf("rerun over a changed bundle: %s, %v; want %s", again, err, id)
	}
	if results, err := store.GetBytes(ctx, st, keys.BundleResults(id)); err != nil || !bytes.Equal(results, clean) {
		t.Errorf("results.json of the bundle built again differs from the clean one (%v)", err)
	}
}

// otherValues is a stored model output with every value moved, in a
// valid format.
func otherValues(t *testing.T, data []byte) []byte {
	t.Helper()
	out, err := detect.ReadModelOutput(bytes.NewReader(data), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, output := range out.Values {
		for _, track := range output {
			for j := range track {
				track[j] = 1 - track[j]
			}
		}
	}
	var buf bytes.Buffer
	if err := detect.WriteModelOutput(&buf, out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zeroedProbs is a stored track with every probability 0.
func zeroedProbs(t *testing.T, data []byte) []byte {
	t.Helper()
	p, err := score.ParseProbs(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Conversations {
		for _, track := range c.Speakers {
			clear(track)
		}
	}
	var buf bytes.Buffer
	if err := score.WriteProbs(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The same on MinIO, with nothing removed: a rerun over a changed model
// output, track, evaluation and results.json computes each again and ends
// with the clean store's results.json.
func TestTamperedOutputsInMinIOAreComputedAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a MinIO server")
	}
	ctx := context.Background()
	specYAML, _ := sweepfixture.Spec(t)
	in := sweepfixture.Resolved(t, specYAML)
	raw := testenv.StartMinIO(t).Store(t, "tampered")
	st := store.Summing{Store: raw, Summed: keys.Summed, SumKey: keys.Sum, Named: keys.Named}
	a := &activities.Activities{Store: st, Scratch: t.TempDir()}
	id, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil {
		t.Fatal(err)
	}
	clean, err := store.GetBytes(ctx, st, keys.BundleResults(id))
	if err != nil {
		t.Fatal(err)
	}
	changes := map[string]func(*testing.T, []byte) []byte{
		"model-outputs/": otherValues,
		"tracks/":        zeroedProbs,
		"evaluations/":   flipped,
		keys.Bundles:     flipped,
	}
	for prefix, change := range changes {
		listed, err := raw.List(ctx, prefix)
		if err != nil || len(listed) == 0 {
			t.Fatalf("%s: %v, %v", prefix, listed, err)
		}
		key := listed[len(listed)-1]
		data, err := store.GetBytes(ctx, raw, key)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, raw, key, change(t, data)); err != nil {
			t.Fatal(err)
		}
	}
	again, err := inprocess.Run(ctx, in, a, activities.Admission{})
	if err != nil || again != id {
		t.Fatalf("rerun: bundle %s, %v; want %s", again, err, id)
	}
	if results, err := store.GetBytes(ctx, st, keys.BundleResults(id)); err != nil || !bytes.Equal(results, clean) {
		t.Errorf("results.json after the rerun differs from the clean store's (%v)", err)
	}
	check, err := activities.VerifyStore(ctx, raw, "", limits.Default())
	if err != nil || len(check.Problems) != 0 {
		t.Errorf("store verify after the rerun: %+v, %v", check, err)
	}
}

// flipped is data with one byte changed.
func flipped(t *testing.T, data []byte) []byte {
	changed := bytes.Clone(data)
	changed[len(changed)/2] ^= 1
	return changed
}
