package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/detect/fromcorpus"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// recordingStore is a real store that remembers the keys put, in order.
type recordingStore struct {
	store.Store
	mu   sync.Mutex
	puts []string
}

func (r *recordingStore) Put(ctx context.Context, key string, rd io.Reader) error {
	r.mu.Lock()
	r.puts = append(r.puts, key)
	r.mu.Unlock()
	return r.Store.Put(ctx, key, rd)
}

// take returns the keys put since the last call.
func (r *recordingStore) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.puts
	r.puts = nil
	return out
}

// recording is a local store that records puts, with activities on it.
func recording(t *testing.T) (*Activities, *recordingStore, *store.Local) {
	t.Helper()
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingStore{Store: local}
	return &Activities{Store: rec, Scratch: t.TempDir()}, rec, local
}

func fixtureCorpus(t *testing.T, d auditfixture.Design, seed uint64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, d, seed); err != nil {
		t.Fatal(err)
	}
	return dir
}

// rmsSystem is the built-in RMS gate as the workflows pass it.
func rmsSystem(t *testing.T) (sweep.SystemRef, *detect.System) {
	t.Helper()
	sys, err := detect.Builtin("rms")
	if err != nil {
		t.Fatal(err)
	}
	sys.Name = "rms"
	yaml, err := sys.SpecYAML()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := sys.Hash(detect.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	return sweep.SystemRef{Name: "rms", YAML: yaml, Hash: hash}, sys
}

func overwrite(t *testing.T, s *store.Local, key, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.Root(), filepath.FromSlash(key)), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stored(t *testing.T, s store.Store, key string) string {
	t.Helper()
	data, err := store.GetBytes(context.Background(), s, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func assertBadInput(t *testing.T, what string, err error, says string) {
	t.Helper()
	if !IsBadInput(err) || !strings.Contains(err.Error(), says) {
		t.Errorf("%s: %v; want a bad-input error saying %q", what, err, says)
	}
}

// IngestLocal stores the manifest after every file; run again it puts
// nothing, and after a partial upload it puts only what is missing, the
// manifest last again.
func TestIngestLocalManifestLastAndResumes(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	manifest := keys.File(plan.Prefix, corpus.ManifestName)
	puts := rec.take()
	if len(puts) != 7 || puts[len(puts)-1] != manifest {
		t.Fatalf("puts %q, want six files then %s", puts, manifest)
	}
	if plan.Kind != corpus.KindMPTB || plan.NoDev || !plan.Ready || len(plan.Conversations) != 2 {
		t.Errorf("plan %+v", plan)
	}
	again, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil || again.Hash != plan.Hash {
		t.Fatalf("again: %+v, %v", again, err)
	}
	if puts := rec.take(); len(puts) != 0 {
		t.Errorf("a stored corpus was uploaded again: %q", puts)
	}

	channel := keys.MemberFile(plan.Prefix, plan.Conversations[1], corpus.ChannelName(1))
	for _, key := range []string{manifest, channel} {
		if err := os.Remove(filepath.Join(local.Root(), filepath.FromSlash(key))); err != nil {
			t.Fatal(err)
		}
	}
	kept := keys.MemberFile(plan.Prefix, plan.Conversations[0], corpus.ChannelName(1))
	before := stored(t, local, kept)
	if _, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)}); err != nil {
		t.Fatal(err)
	}
	if puts := rec.take(); !slices.Equal(puts, []string{channel, manifest}) {
		t.Errorf("resumed upload put %q, want %q", puts, []string{channel, manifest})
	}
	if stored(t, local, kept) != before {
		t.Error("a stored file was rewritten")
	}
	_, err = a.IngestLocal(ctx, IngestInput{Name: "nothing", Dir: t.TempDir()})
	assertBadInput(t, "a folder without corpus.json", err, "corpus nothing: ")
}

// PlanStored gives the plan IngestLocal gave, for the prefix with or
// without its slash; a corpus without dev conversations is marked NoDev.
// A missing or unreadable manifest is bad input naming the corpus.
func TestPlanStored(t *testing.T) {
	ctx := context.Background()
	a, _, local := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{plan.Prefix, plan.Prefix + "/"} {
		got, err := a.PlanStored(ctx, PlanStoredInput{Name: "c", Prefix: prefix})
		if err != nil || got.Prefix != plan.Prefix || got.Hash != plan.Hash || !slices.Equal(got.Conversations, plan.Conversations) ||
			got.Kind != plan.Kind || got.NoDev || !got.Ready || got.Preset != "audit-fixture" || got.Seed != 1 {
			t.Errorf("PlanStored(%q) = %+v, %v; want %+v", prefix, got, err, plan)
		}
	}
	noDev, err := a.IngestLocal(ctx, IngestInput{Name: "nodev", Dir: fixtureCorpus(t, auditfixture.Design{Test: 1, Claims: []float64{3.5}, Others: []float64{0.3}}, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := a.PlanStored(ctx, PlanStoredInput{Name: "nodev", Prefix: noDev.Prefix}); err != nil || !got.NoDev || !noDev.NoDev {
		t.Errorf("a corpus without dev data: %+v, %v", got, err)
	}

	_, err = a.PlanStored(ctx, PlanStoredInput{Name: "gone", Prefix: "corpora/none"})
	assertBadInput(t, "no corpus under the prefix", err, "corpus gone: ")
	if err := store.PutBytes(ctx, local, "corpora/bad/corpus.json", []byte("{")); err != nil {
		t.Fatal(err)
	}
	_, err = a.PlanStored(ctx, PlanStoredInput{Name: "bad", Prefix: "corpora/bad"})
	assertBadInput(t, "a corpus.json that does not parse", err, "corpus bad: corpora/bad/corpus.json: ")
}

// PlanGenerated lists the preset's conversations under the hash of preset,
// seed and generator, and says the corpus is ready once its manifest is
// stored; an unknown preset is bad input.
func TestPlanGenerated(t *testing.T) {
	ctx := context.Background()
	a, _, local := recording(t)
	p, err := a.PlanGenerated(ctx, PlanGeneratedInput{Name: "t", Preset: "tiny", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ready || p.Kind != corpus.KindMPTB || p.Hash != GeneratedCorpusHash("tiny", 1, backend.Config{}) || p.Prefix != "corpora/"+p.Hash ||
		len(p.Conversations) != 12 || p.Conversations[0] != "tiny-00-2p-"+p.Conversations[0][len("tiny-00-2p-"):] || p.Preset != "tiny" || p.Seed != 1 {
		t.Fatalf("plan %+v", p)
	}
	if GeneratedCorpusHash("tiny", 2, backend.Config{}) == p.Hash || keys.GeneratedCorpus("tiny", 1, 0, nil) == p.Hash {
		t.Error("another seed or generator version has the same hash")
	}
	if err := store.PutBytes(ctx, local, keys.File(p.Prefix, corpus.ManifestName), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if p, err := a.PlanGenerated(ctx, PlanGeneratedInput{Name: "t", Preset: "tiny", Seed: 1}); err != nil || !p.Ready {
		t.Errorf("with its manifest stored: ready %v, %v", p.Ready, err)
	}
	_, err = a.PlanGenerated(ctx, PlanGeneratedInput{Name: "x", Preset: "huge", Seed: 1})
	assertBadInput(t, "an unknown preset", err, `corpus x: unknown preset "huge"`)
}

// A conversation the preset does not have, or a preset that does not
// exist, is bad input, and nothing is stored; a conversation whose entry
// is stored is not generated again.
func TestGenerateConversationInputs(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	prefix := "corpora/" + GeneratedCorpusHash("tiny", 1, backend.Config{})
	err := a.GenerateConversation(ctx, GenerateInput{Prefix: prefix, Preset: "tiny", Seed: 1, Conversation: "tiny-99"})
	assertBadInput(t, "an unknown conversation", err, `preset tiny has no conversation "tiny-99"`)
	err = a.GenerateConversation(ctx, GenerateInput{Prefix: prefix, Preset: "huge", Seed: 1, Conversation: "x"})
	assertBadInput(t, "an unknown preset", err, `unknown preset "huge"`)
	if puts := rec.take(); len(puts) != 0 {
		t.Errorf("bad input stored %q", puts)
	}
	entry := keys.Entry(prefix, "tiny-00")
	if err := store.PutBytes(ctx, local, entry, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	if err := a.GenerateConversation(ctx, GenerateInput{Prefix: prefix, Preset: "tiny", Seed: 1, Conversation: "tiny-00"}); err != nil {
		t.Fatal(err)
	}
	if puts := rec.take(); len(puts) != 0 || stored(t, local, entry) != "kept" {
		t.Errorf("a stored conversation was generated again: %q", puts)
	}
}

// FinalizeCorpus writes corpus.json from the stored entries in the plan's
// order; a stored manifest is left as it is, a missing entry names its
// conversation and an entry that does not decode is corrupt.
func TestFinalizeCorpus(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	src := mustOpen(t, smallCorpus(t))
	prefix := "corpora/gen"
	for _, c := range src.Manifest.Conversations {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.PutBytes(ctx, local, keys.Entry(prefix, c.ID), data); err != nil {
			t.Fatal(err)
		}
	}
	ids := []string{src.Manifest.Conversations[1].ID, src.Manifest.Conversations[0].ID}
	plan := CorpusPlan{Name: "g", Prefix: prefix, Preset: "audit-fixture", Seed: 7, Conversations: ids}
	if err := a.FinalizeCorpus(ctx, FinalizeInput{Plan: plan}); err != nil {
		t.Fatal(err)
	}
	key := keys.File(prefix, corpus.ManifestName)
	m, err := corpus.ParseManifest([]byte(stored(t, local, key)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if m.Preset != "audit-fixture" || m.Seed != 7 || m.Kind != corpus.KindMPTB || len(m.Conversations) != 2 ||
		m.Conversations[0].ID != ids[0] || m.Conversations[1].ID != ids[1] ||
		m.Conversations[0].Files[corpus.EventsName] != src.Manifest.Conversations[1].Files[corpus.EventsName] {
		t.Fatalf("manifest %+v", m)
	}
	rec.take()
	overwrite(t, local, key, "kept")
	if err := a.FinalizeCorpus(ctx, FinalizeInput{Plan: plan}); err != nil || stored(t, local, key) != "kept" || len(rec.take()) != 0 {
		t.Errorf("a stored manifest was rewritten: %v", err)
	}

	plan.Prefix = "corpora/partial"
	err = a.FinalizeCorpus(ctx, FinalizeInput{Plan: plan})
	if err == nil || IsBadInput(err) || !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "corpus g: conversation "+ids[0]) {
		t.Errorf("a missing entry: %v", err)
	}
	if err := store.PutBytes(ctx, local, keys.Entry(plan.Prefix, ids[0]), []byte("{")); err != nil {
		t.Fatal(err)
	}
	err = a.FinalizeCorpus(ctx, FinalizeInput{Plan: plan})
	assertUndecodable(t, err, keys.Entry(plan.Prefix, ids[0]))
	if ok, _ := store.Exists(ctx, local, keys.File(plan.Prefix, corpus.ManifestName)); ok {
		t.Error("a manifest was stored for an incomplete corpus")
	}
}

// Infer stores each conversation's EOT and INT tracks, INT last, with the
// scores the detector gives on the same audio read locally. A batch run
// again stores nothing; one with a conversation done redoes only the rest.
func TestInferStoresTracksAndResumes(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	dir := smallCorpus(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rec.take()
	ref, sys := rmsSystem(t)
	in := InferInput{System: ref, Corpus: plan, Conversation: plan.Conversations[0], Conversations: plan.Conversations[1:]}
	if err := a.Infer(ctx, in); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, id := range plan.Conversations {
		want = append(want, keys.Track(ref.Hash, plan.Hash, id, floor.TaskEOT), keys.Track(ref.Hash, plan.Hash, id, floor.TaskINT))
	}
	if puts := rec.take(); !slices.Equal(puts, want) {
		t.Fatalf("puts %q, want %q", puts, want)
	}

	det, err := sys.Open(detect.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	defer det.Close()
	c := mustOpen(t, dir)
	for _, conv := range c.Manifest.Conversations {
		audio, err := fromcorpus.Conversation(c, conv)
		if err != nil {
			t.Fatal(err)
		}
		scores, err := det.Detect(ctx, audio)
		if err != nil {
			t.Fatal(err)
		}
		for task, tracks := range map[floor.Task][][]float64{floor.TaskEOT: scores.EOT, floor.TaskINT: scores.INT} {
			p, err := score.ParseProbs([]byte(stored(t, local, keys.Track(ref.Hash, plan.Hash, conv.ID, task))))
			if err != nil {
				t.Fatal(err)
			}
			if p.Task != task || p.FrameRate != scores.FrameRate || len(p.Conversations) != 1 || p.Conversations[0].ID != conv.ID ||
				len(p.Conversations[0].Speakers) != conv.Speakers {
				t.Fatalf("%s %s: %+v", conv.ID, task, p)
			}
			for k, track := range tracks {
				got := p.Conversations[0].Speakers[k]
				if len(got) != len(track) || len(got) < int(conv.Duration*scores.FrameRate)-1 {
					t.Fatalf("%s %s speaker %d: %d frames, want %d", conv.ID, task, k+1, len(got), len(track))
				}
				for i := range got {
					if math.Abs(got[i]-track[i]) > 1e-6 {
						t.Fatalf("%s %s speaker %d frame %d: %v, want %v", conv.ID, task, k+1, i, got[i], track[i])
					}
				}
			}
		}
	}

	if err := a.Infer(ctx, in); err != nil {
		t.Fatal(err)
	}
	if puts := rec.take(); len(puts) != 0 {
		t.Errorf("a finished batch stored %q", puts)
	}
	doneINT := keys.Track(ref.Hash, plan.Hash, plan.Conversations[0], floor.TaskINT)
	overwrite(t, local, doneINT, "kept")
	if err := os.Remove(filepath.Join(local.Root(), filepath.FromSlash(want[3]))); err != nil {
		t.Fatal(err)
	}
	if err := a.Infer(ctx, in); err != nil {
		t.Fatal(err)
	}
	if puts := rec.take(); !slices.Equal(puts, want[2:]) || stored(t, local, doneINT) != "kept" {
		t.Errorf("resumed batch put %q, want %q only", puts, want[2:])
	}
}

// What retrying cannot fix fails Infer as bad input (a system that does
// not parse, a conversation the corpus lacks, a file for a role the
// family does not read) or as corrupt (an uploaded file whose bytes do
// not match its key); a corpus not yet stored is an ordinary, retryable
// error. None stores a track.
func TestInferRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	rec.take()
	ref, _ := rmsSystem(t)

	bad := ref
	bad.Name, bad.YAML = "broken", []byte("family: nope\n")
	err = a.Infer(ctx, InferInput{System: bad, Corpus: plan, Conversations: plan.Conversations})
	assertBadInput(t, "a system that does not parse", err, "system broken: ")

	err = a.Infer(ctx, InferInput{System: ref, Corpus: plan, Conversations: []string{"absent"}})
	assertBadInput(t, "an unknown conversation", err, `corpus c has no conversation "absent"`)

	content := []byte("model bytes")
	if err := store.PutBytes(ctx, local, keys.Input(strings.Repeat("0", 64)), content); err != nil {
		t.Fatal(err)
	}
	withFile := ref
	withFile.Files = map[string]string{"model": keys.Input(strings.Repeat("0", 64))}
	err = a.Infer(ctx, InferInput{System: withFile, Corpus: plan, Conversations: plan.Conversations})
	assertUndecodable(t, err, keys.Input(strings.Repeat("0", 64)))

	sum := sha256Hex(content)
	if err := store.PutBytes(ctx, local, keys.Input(sum), content); err != nil {
		t.Fatal(err)
	}
	withFile.Files = map[string]string{"model": keys.Input(sum)}
	err = a.Infer(ctx, InferInput{System: withFile, Corpus: plan, Conversations: plan.Conversations})
	assertBadInput(t, "a file for a role rms does not read", err, `family rms reads no file "model"`)

	unstored := plan
	unstored.Prefix, unstored.Hash = "corpora/none", "none"
	err = a.Infer(ctx, InferInput{System: ref, Corpus: unstored, Conversations: plan.Conversations})
	if !errors.Is(err, store.ErrNotFound) || IsBadInput(err) {
		t.Errorf("a corpus not stored: %v; want a retryable not-found", err)
	}
	for _, k := range rec.take() {
		if strings.HasPrefix(k, "tracks/") {
			t.Errorf("bad input stored %s", k)
		}
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// inferred ingests a fixture corpus and runs rms over all of it.
func inferred(t *testing.T, a *Activities, name, dir string) (CorpusPlan, sweep.SystemRef) {
	t.Helper()
	ctx := context.Background()
	plan, err := a.IngestLocal(ctx, IngestInput{Name: name, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := rmsSystem(t)
	if err := a.Infer(ctx, InferInput{System: ref, Corpus: plan, Conversations: plan.Conversations}); err != nil {
		t.Fatal(err)
	}
	return plan, ref
}

// Evaluate stores one evaluation of both tasks under the key of its
// inputs, with the corpus's dev and test conversations, and returns a
// stored one untouched. A corpus without dev data evaluated with a
// transfer uses exactly the source evaluation's thresholds.
func TestEvaluate(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	plan, ref := inferred(t, a, "c", smallCorpus(t))
	in := EvaluateInput{System: ref, Corpus: plan, Params: score.DefaultParams(), Resamples: 20, Seed: 3}
	rec.take()
	key, err := a.Evaluate(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if key != EvaluationKey(in) || !strings.HasPrefix(key, "evaluations/"+ref.Hash+"/"+plan.Hash+"/") {
		t.Errorf("key %s", key)
	}
	if puts := rec.take(); !slices.Equal(puts, []string{key}) {
		t.Errorf("puts %q", puts)
	}
	var e evaluate.Evaluation
	if err := json.Unmarshal([]byte(stored(t, local, key)), &e); err != nil {
		t.Fatal(err)
	}
	if e.System != "rms" || e.SystemHash != ref.Hash || e.CorpusHash != plan.Hash || len(e.Tasks) != 2 ||
		e.Tasks[0].Task != floor.TaskEOT || e.Tasks[1].Task != floor.TaskINT {
		t.Fatalf("evaluation %s %s %s, %d tasks", e.System, e.SystemHash, e.CorpusHash, len(e.Tasks))
	}
	if e.CorpusInfo == nil || e.CorpusInfo.Dev != 1 || e.CorpusInfo.Test != 1 || e.CorpusInfo.Kind != corpus.KindMPTB {
		t.Errorf("corpus info %+v", e.CorpusInfo)
	}
	for _, task := range e.Tasks {
		if len(task.TestByConv) != 1 {
			t.Errorf("%s: %d test conversations scored, want 1", task.Task, len(task.TestByConv))
		}
	}
	other := in
	other.Seed = 4
	if EvaluationKey(other) == key {
		t.Error("another bootstrap seed has the same key")
	}

	original := stored(t, local, key)
	overwrite(t, local, key, "kept")
	if again, err := a.Evaluate(ctx, in); err != nil || again != key || stored(t, local, key) != "kept" {
		t.Errorf("a stored evaluation was recomputed: %v", err)
	}
	overwrite(t, local, key, original)

	noDev, _ := inferred(t, a, "nodev", fixtureCorpus(t, auditfixture.Design{Test: 2, Claims: []float64{3.5}, Others: []float64{0.3}}, 5))
	tin := EvaluateInput{System: ref, Corpus: noDev, Params: in.Params, Resamples: 20, Seed: 3, Transfer: &Transfer{Corpus: "c", Evaluation: key}}
	tkey, err := a.Evaluate(ctx, tin)
	if err != nil {
		t.Fatal(err)
	}
	var te evaluate.Evaluation
	if err := json.Unmarshal([]byte(stored(t, local, tkey)), &te); err != nil {
		t.Fatal(err)
	}
	sources := 0
	for i, task := range te.Tasks {
		src := e.Tasks[i]
		if !src.HasOP {
			continue
		}
		sources++
		if task.TransferredFrom != "c" || task.Theta != src.Theta {
			t.Errorf("%s: theta %v from %q, want %v from c", task.Task, task.Theta, task.TransferredFrom, src.Theta)
		}
	}
	if sources == 0 {
		t.Fatal("the source evaluation has no operating point to transfer")
	}
	if te.CorpusInfo.Dev != 0 || te.CorpusInfo.Test != 2 {
		t.Errorf("corpus info %+v", te.CorpusInfo)
	}
	if tkey == EvaluationKey(EvaluateInput{System: ref, Corpus: noDev, Params: in.Params, Resamples: 20, Seed: 3}) {
		t.Error("the transfer is not part of the key")
	}

	if err := store.PutBytes(ctx, local, "evaluations/x/broken.json", []byte("{")); err != nil {
		t.Fatal(err)
	}
	tin.Transfer.Evaluation = "evaluations/x/broken.json" // a new key: nothing stored under it
	_, err = a.Evaluate(ctx, tin)
	assertUndecodable(t, err, "evaluations/x/broken.json")
}

// assertUndecodable checks err is the non-retryable failure of a stored
// object that does not decode, naming its key.
func assertUndecodable(t *testing.T, err error, key string) {
	t.Helper()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != sweep.Corrupt || !app.NonRetryable() || !strings.Contains(err.Error(), "stored object "+key+" is corrupt: ") {
		t.Errorf("reading undecodable %s: %v", key, err)
	}
}

// Parameters the protocol cannot run with, and more bootstrap resamples
// than the worker allows, are bad input and store nothing; tracks not yet
// stored are an ordinary error.
func TestEvaluateRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	a, rec, _ := recording(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := rmsSystem(t)
	rec.take()
	p := score.DefaultParams()
	p.TauMax = -1
	_, err = a.Evaluate(ctx, EvaluateInput{System: ref, Corpus: plan, Params: p, Resamples: 10})
	assertBadInput(t, "a negative tau_max", err, "tau")
	_, err = a.Evaluate(ctx, EvaluateInput{System: ref, Corpus: plan, Params: score.DefaultParams(), Resamples: 1 << 30})
	assertBadInput(t, "too many resamples", err, "bootstrap resamples")
	_, err = a.Evaluate(ctx, EvaluateInput{System: ref, Corpus: plan, Params: score.DefaultParams(), Resamples: 10})
	if !errors.Is(err, store.ErrNotFound) || IsBadInput(err) {
		t.Errorf("tracks not inferred: %v", err)
	}
	if puts := rec.take(); len(puts) != 0 {
		t.Errorf("stored %q", puts)
	}
}

// LoadCorpus reads each labelled conversation's gold into its split with
// its attributes: speakers, interaction type and SNR band.
func TestLoadCorpus(t *testing.T) {
	a, _, _ := recording(t)
	dir := smallCorpus(t)
	plan, err := a.IngestLocal(context.Background(), IngestInput{Name: "c", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.LoadCorpus(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	m := mustOpen(t, dir).Manifest
	if c.Name != "c" || c.Hash != plan.Hash || c.Kind != corpus.KindMPTB || len(c.Dev.Conversations) != 1 || len(c.Test.Conversations) != 1 ||
		c.Dev.Conversations[0].ID != m.Conversations[0].ID || c.Test.Conversations[0].ID != m.Conversations[1].ID || c.Unlabelled != 0 {
		t.Fatalf("corpus %+v", c)
	}
	for _, conv := range m.Conversations {
		bc := c.Conversations[conv.ID]
		if bc.Split != conv.Split || bc.Attributes["speakers"] != "2" || bc.Attributes["type"] != conv.InteractionType ||
			bc.Attributes["snr_band"] != SNRBand(conv.SNR) || bc.Anatomy == nil {
			t.Errorf("%s: %+v", conv.ID, bc)
		}
	}
}

// SNR bands are 5 dB wide, by the mean over channels.
func TestSNRBand(t *testing.T) {
	for _, c := range []struct {
		snr  []float64
		want string
	}{
		{[]float64{22, 24}, "20-25"},
		{[]float64{35, 40}, "35-40"},
		{[]float64{25}, "25-30"},
		{nil, "unknown"},
	} {
		if got := SNRBand(c.snr); got != c.want {
			t.Errorf("SNRBand(%v) = %s, want %s", c.snr, got, c.want)
		}
	}
}

// Aggregate stores the bundle's manifest after its other files, and
// returns a stored bundle untouched.
func TestAggregateManifestLastAndOnce(t *testing.T) {
	ctx := context.Background()
	a, rec, local := recording(t)
	plan, ref := inferred(t, a, "c", smallCorpus(t))
	key, err := a.Evaluate(ctx, EvaluateInput{System: ref, Corpus: plan, Params: score.DefaultParams(), Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec.take()
	meta := bundle.Meta{Name: "agg", Protocol: score.DefaultParams(), Resamples: 20, Seed: 1}
	id, err := a.Aggregate(ctx, AggregateInput{Meta: meta, Evaluations: []string{key}})
	if want, _ := bundle.ID(meta); err != nil || id != want {
		t.Fatalf("id %s, %v", id, err)
	}
	puts := rec.take()
	manifest := keys.Bundle(id, "manifest.json")
	if len(puts) < 2 || puts[len(puts)-1] != manifest || !slices.Contains(puts, keys.Bundle(id, "results.json")) {
		t.Fatalf("puts %q, want results.json and the rest, then %s", puts, manifest)
	}
	overwrite(t, local, manifest, "kept")
	if again, err := a.Aggregate(ctx, AggregateInput{Meta: meta, Evaluations: []string{key}}); err != nil || again != id ||
		len(rec.take()) != 0 || stored(t, local, manifest) != "kept" {
		t.Errorf("a stored bundle was rebuilt: %v", err)
	}
	_, err = a.Aggregate(ctx, AggregateInput{Meta: bundle.Meta{Name: "other"}, Evaluations: []string{"evaluations/none.json"}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing evaluation: %v", err)
	}
}

// An evaluation is stored by content, so a sweep can reuse one another
// sweep computed under other names: its bundle shows this sweep's names
// (those of its meta, evaluation i being system i/n on corpus i%n). A
// plan whose evaluations do not match its meta is refused.
func TestAggregateNamesEvaluationsAsTheSweep(t *testing.T) {
	ctx := context.Background()
	a, _, local := recording(t)
	plan, ref := inferred(t, a, "c", smallCorpus(t))
	key, err := a.Evaluate(ctx, EvaluateInput{System: ref, Corpus: plan, Params: score.DefaultParams(), Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	meta := bundle.Meta{Name: "renamed", Protocol: score.DefaultParams(), Resamples: 20, Seed: 1, Inputs: []bundle.InputRef{
		{Kind: "corpus", Name: "their-corpus", Hash: plan.Hash}, {Kind: "system", Name: "their-system", Hash: ref.Hash}}}
	id, err := a.Aggregate(ctx, AggregateInput{Meta: meta, Evaluations: []string{key}})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Evaluations []struct{ System, Corpus string }
		Corpora     []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(stored(t, local, keys.Bundle(id, "results.json"))), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Evaluations) != 1 || res.Evaluations[0].System != "their-system" || res.Evaluations[0].Corpus != "their-corpus" ||
		len(res.Corpora) != 1 || res.Corpora[0].Name != "their-corpus" {
		t.Errorf("results name %+v and corpora %+v, want their-system on their-corpus", res.Evaluations, res.Corpora)
	}
	meta.Name, meta.Inputs[1].Hash = "mismatch", "0000"
	_, err = a.Aggregate(ctx, AggregateInput{Meta: meta, Evaluations: []string{key}})
	assertBadInput(t, "an evaluation of another system", err, "want their-system (0000)")
	meta.Name, meta.Inputs = "short", meta.Inputs[:1]
	_, err = a.Aggregate(ctx, AggregateInput{Meta: meta, Evaluations: []string{key}})
	assertBadInput(t, "more evaluations than systems", err, "1 evaluations for 0 systems on 1 corpora")
}

// A sweep the worker's limits refuse is bad input; a valid one passes.
func TestCheckSpec(t *testing.T) {
	t.Parallel()
	s, err := spec.Parse("ok", []byte("name: ok\ncorpora:\n  - name: t\n    generate: {preset: tiny, seed: 1}\nsystems:\n  - {name: rms, builtin: rms}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{}
	if err := a.CheckSpec(context.Background(), *s); err != nil {
		t.Errorf("a valid sweep: %v", err)
	}
	s.Corpora[0].Generate.Preset = "huge"
	err = a.CheckSpec(context.Background(), *s)
	assertBadInput(t, "an unknown preset", err, `corpora[0].generate.preset: unknown preset "huge"`)
	s.Corpora[0].Generate.Preset = "tiny"
	s.Queues.CPU = "no spaces"
	err = a.CheckSpec(context.Background(), *s)
	assertBadInput(t, "a bad queue name", err, `queues.cpu: (not quoted) is not a task queue name`)
	s.Queues.CPU = ""
	strict := limits.Default()
	strict.Resamples = 10
	err = (&Activities{Limits: strict}).CheckSpec(context.Background(), *s)
	assertBadInput(t, "the worker's lower limit", err, "bootstrap.resamples: 10000 is over the limit of 10")
}

// Off Kubernetes there is no GPU pool to claim: both steps do nothing.
func TestGPUCapacityOffKubernetes(t *testing.T) {
	a := &Activities{}
	if err := a.AcquireGPU(context.Background(), CapacityInput{Holder: "s", Replicas: 2}); err != nil {
		t.Error(err)
	}
	if err := a.ReleaseGPU(context.Background(), CapacityInput{Holder: "s"}); err != nil {
		t.Error(err)
	}
}
