package activities

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
	"github.com/floorbench/floorbench/internal/testenv"
)

// systemRef is a built-in system with parameters, as Resolve passes it.
func systemRef(t *testing.T, name, family string, rt detect.Runtime, params map[string]string) sweep.SystemRef {
	t.Helper()
	sys, err := detect.Builtin(family)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range params {
		if err := sys.SetParam(k, v); err != nil {
			t.Fatal(err)
		}
	}
	sys.Name = name
	yaml, err := sys.SpecYAML()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := sys.Hash(rt)
	if err != nil {
		t.Fatal(err)
	}
	model, err := sys.ModelHash(rt)
	if err != nil {
		t.Fatal(err)
	}
	return sweep.SystemRef{Name: name, YAML: yaml, Hash: hash, ModelHash: model}
}

// The two stages make the tracks Infer makes, byte for byte: the model
// stage stores one output per conversation, and every system of that
// model (a gate, an endpointer, another ramp) maps it to its own tracks.
// Run again, the model stage runs nothing; a batch with one output gone
// runs the model on that conversation only.
func TestModelStageAndFloorStageMakeInfersTracks(t *testing.T) {
	for _, tc := range []struct {
		family, other string
		onnx          bool
	}{{"rms", "rms-endpointer", false}, {"silero", "silero-endpointer", true}} {
		t.Run(tc.family, func(t *testing.T) {
			ctx := context.Background()
			a, rec, local := recording(t)
			if tc.onnx {
				a.Runtime = onnxRuntime(t)
				a.Runtime.BatchRows = 3
			}
			plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
			if err != nil {
				t.Fatal(err)
			}
			rec.take()
			systems := []sweep.SystemRef{
				systemRef(t, tc.family, tc.family, a.Runtime, nil),
				systemRef(t, tc.other, tc.other, a.Runtime, nil),
				systemRef(t, tc.other+"-ramp", tc.other, a.Runtime, map[string]string{"eot_ramp_s": "1"}),
			}
			res, err := a.RunModel(ctx, ModelInput{System: systems[0], Corpus: plan, Conversations: plan.Conversations})
			if err != nil {
				t.Fatal(err)
			}
			var outputs []string
			for _, id := range plan.Conversations {
				outputs = append(outputs, keys.ModelOutput(systems[0].ModelHash, plan.Hash, id))
			}
			puts := rec.take()
			slices.Sort(puts)
			if res.Ran != len(plan.Conversations) || !slices.Equal(puts, outputs) {
				t.Fatalf("ran %d, put %q; want %q", res.Ran, puts, outputs)
			}
			for _, s := range systems {
				if s.ModelHash != systems[0].ModelHash {
					t.Fatalf("%s has model hash %s, %s %s", s.Name, s.ModelHash, systems[0].Name, systems[0].ModelHash)
				}
				if err := a.MapFloor(ctx, FloorInput{System: s, Corpus: plan, Conversations: plan.Conversations}); err != nil {
					t.Fatal(err)
				}
				mapped := tracksOf(t, local, s, plan)
				inferAlone := recordingAt(t, a)
				if err := inferAlone.Infer(ctx, InferInput{System: s, Corpus: plan, Conversations: plan.Conversations}); err != nil {
					t.Fatal(err)
				}
				if inferredTracks := tracksOf(t, inferAlone.Store, s, plan); !slices.Equal(mapped, inferredTracks) {
					t.Errorf("%s: the mapped tracks differ from Infer's", s.Name)
				}
			}
			rec.take()
			if res, err := a.RunModel(ctx, ModelInput{System: systems[1], Corpus: plan, Conversations: plan.Conversations}); err != nil || res.Ran != 0 {
				t.Errorf("the model stage of a stored corpus ran on %d conversations (%v)", res.Ran, err)
			}
			if err := os.Remove(filepath.Join(local.Root(), filepath.FromSlash(outputs[1]))); err != nil {
				t.Fatal(err)
			}
			if res, err := a.RunModel(ctx, ModelInput{System: systems[2], Corpus: plan, Conversations: plan.Conversations}); err != nil || res.Ran != 1 {
				t.Errorf("with one output gone the model ran on %d conversations (%v), want 1", res.Ran, err)
			}
			if puts := rec.take(); !slices.Equal(puts, outputs[1:2]) {
				t.Errorf("resumed model stage put %q, want %q", puts, outputs[1:2])
			}
		})
	}
}

// recordingAt is a fresh store holding the corpora a's store holds, with
// activities on it: Infer there starts from no tracks.
func recordingAt(t *testing.T, a *Activities) *Activities {
	t.Helper()
	b, _, local := recording(t)
	b.Runtime = a.Runtime
	ctx := context.Background()
	list, err := a.Store.List(ctx, keys.Corpora)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range list {
		data, err := store.GetBytes(ctx, a.Store, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, local, k, data); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// tracksOf is every track of a system on a corpus, as stored.
func tracksOf(t *testing.T, s store.Store, sys sweep.SystemRef, plan CorpusPlan) []string {
	t.Helper()
	var out []string
	for _, id := range plan.Conversations {
		for _, task := range floor.Tasks {
			out = append(out, stored(t, s, keys.Track(sys.Hash, plan.Hash, id, task)))
		}
	}
	return out
}

// MapFloor refuses, without retrying, a conversation whose model output
// is not stored or does not decode, and a system without a model stage;
// RunModel refuses a system without one.
func TestFloorStageRefusesWhatItCannotMap(t *testing.T) {
	ctx := context.Background()
	a, _, local := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	ref := systemRef(t, "rms", "rms", a.Runtime, nil)
	err = a.MapFloor(ctx, FloorInput{System: ref, Corpus: plan, Conversations: plan.Conversations[:1]})
	assertBadInput(t, "a model output not stored", err, "is not stored (the model stage runs first)")

	key := keys.ModelOutput(ref.ModelHash, plan.Hash, plan.Conversations[0])
	if err := store.PutBytes(ctx, local, key, []byte("not a model output\n")); err != nil {
		t.Fatal(err)
	}
	err = a.MapFloor(ctx, FloorInput{System: ref, Corpus: plan, Conversations: plan.Conversations[:1]})
	assertUndecodable(t, err, key)

	ext := ref
	ext.ModelHash = ""
	_, err = a.RunModel(ctx, ModelInput{System: ext, Corpus: plan, Conversations: plan.Conversations})
	assertBadInput(t, "a system without a model stage", err, "has no model stage")
	if exists, _ := store.Exists(ctx, local, keys.Track(ref.Hash, plan.Hash, plan.Conversations[0], floor.TaskINT)); exists {
		t.Error("a refused batch stored a track")
	}
	if !strings.HasPrefix(key, "model-outputs/") {
		t.Errorf("model outputs are stored under %s", key)
	}
}

// onnxRuntime is the tools' ONNX Runtime and Silero model on the CPU; a
// test without them fails where tools are required and skips elsewhere.
func onnxRuntime(t *testing.T) detect.Runtime {
	t.Helper()
	rt := detect.RuntimeFromEnv()
	rt.Device = detect.DeviceCPU
	_, libErr := os.Stat(filepath.Join(rt.Tools, detect.OnnxRuntimeLibraryPath))
	_, modelErr := os.Stat(filepath.Join(rt.Tools, detect.SileroModelPath))
	if libErr != nil || modelErr != nil {
		msg := "ONNX Runtime or the Silero model is not installed (run scripts/setup.sh onnx)"
		if testenv.Required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return rt
}

// Under Temporal, a conversation the corpus lacks fails the model stage
// on its first attempt, before the model runs on any, however deep in the
// batch it is; so does a floor stage whose model output is not stored.
func TestModelStagesBadInputIsNotRetried(t *testing.T) {
	ctx := context.Background()
	a, _ := localActivities(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	ref := systemRef(t, "rms", "rms", a.Runtime, nil)
	// MapFloor also finds no output because RunModel, refused, stored none.
	for _, c := range []struct {
		name string
		in   any
		says string
	}{
		{"RunModel", ModelInput{System: ref, Corpus: plan, Conversations: append(slices.Clone(plan.Conversations), "absent")}, `corpus c has no conversation "absent"`},
		{"MapFloor", FloorInput{System: ref, Corpus: plan, Conversations: plan.Conversations}, "(the model stage runs first)"},
	} {
		n, err := attempts(t, a, c.name, c.in)
		var app *temporal.ApplicationError
		if n != 1 || !errors.As(err, &app) || app.Type() != sweep.BadInput || !app.NonRetryable() || !strings.Contains(app.Message(), c.says) {
			t.Errorf("%s: %d attempts, %v; want 1 attempt failing with BadInput %q", c.name, n, err, c.says)
		}
	}
}
