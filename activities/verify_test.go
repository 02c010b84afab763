package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

func smallCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	return dir
}

func localActivities(t *testing.T) (*Activities, *store.Local) {
	t.Helper()
	s, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Activities{Store: s, Scratch: t.TempDir()}, s
}

// flipByte changes one byte in the middle of a file.
func flipByte(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func storedKeys(t *testing.T, s store.Store) []string {
	t.Helper()
	keys, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// The same files give the same corpus hash; a corpus with one changed
// byte in a channel, its manifest untouched, is refused before anything
// is uploaded, naming the file and both hashes.
func TestIngestLocalVerifiesEveryFile(t *testing.T) {
	ctx := context.Background()
	a, _ := localActivities(t)
	p1, err := a.IngestLocal(ctx, IngestInput{Name: "one", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := localActivities(t)
	p2, err := b.IngestLocal(ctx, IngestInput{Name: "two", Dir: smallCorpus(t)})
	if err != nil || p2.Hash != p1.Hash {
		t.Fatalf("same files: hash %s and %s, %v", p1.Hash, p2.Hash, err)
	}

	c := mustOpen(t, smallCorpus(t))
	conv := c.Manifest.Conversations[0]
	wav := filepath.Join(c.Dir, conv.ID, corpus.ChannelName(2))
	flipByte(t, wav)
	a, s := localActivities(t)
	_, err = a.IngestLocal(ctx, IngestInput{Name: "tampered", Dir: c.Dir})
	if !IsBadInput(err) || !strings.Contains(err.Error(), wav+": sha256 ") || !strings.Contains(err.Error(), "the manifest says "+conv.Files[corpus.ChannelName(2)]) {
		t.Fatalf("tampered corpus: %v", err)
	}
	if keys := storedKeys(t, s); len(keys) != 0 {
		t.Fatalf("a tampered corpus uploaded %v", keys)
	}
}

// A channel linked to a file outside the corpus, even one with the bytes
// the manifest records, is refused and nothing is uploaded.
func TestIngestLocalRefusesLinks(t *testing.T) {
	c := mustOpen(t, smallCorpus(t))
	conv := c.Manifest.Conversations[1]
	path := filepath.Join(c.Dir, conv.ID, corpus.ChannelName(1))
	outside := filepath.Join(t.TempDir(), "speaker.wav")
	if err := os.Rename(path, outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, path); err != nil {
		t.Fatal(err)
	}
	a, s := localActivities(t)
	_, err := a.IngestLocal(context.Background(), IngestInput{Name: "linked", Dir: c.Dir})
	if !IsBadInput(err) || !strings.Contains(err.Error(), path+": is a symbolic link") {
		t.Fatalf("linked corpus: %v", err)
	}
	if keys := storedKeys(t, s); len(keys) != 0 {
		t.Fatalf("a linked corpus uploaded %v", keys)
	}
}

func mustOpen(t *testing.T, dir string) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Open(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A stored corpus object changed after upload fails the activity that
// reads it at once (not retryable), naming its key, and VerifyStore
// reports it.
func TestCorruptStoredObjectIsCaught(t *testing.T) {
	ctx := context.Background()
	a, s := localActivities(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := VerifyStore(ctx, s, "", limits.Default())
	if err != nil || r.Corpora != 1 || r.Objects != 7 || len(r.Problems) != 0 {
		t.Fatalf("clean store: %+v, %v", r, err)
	}
	if _, err := a.LoadCorpus(ctx, plan); err != nil {
		t.Fatal(err)
	}

	labels := keys.MemberFile(plan.Prefix, plan.Conversations[0], corpus.EventsName)
	channel := keys.MemberFile(plan.Prefix, plan.Conversations[1], corpus.ChannelName(2))
	for _, key := range []string{labels, channel} {
		flipByte(t, filepath.Join(s.Root(), filepath.FromSlash(key)))
	}
	_, err = a.LoadCorpus(ctx, plan)
	assertCorrupt(t, err, labels)
	_, err = a.Audit(ctx, AuditInput{Corpus: plan, Params: score.DefaultParams(), Resamples: 10, Seed: 1})
	assertCorrupt(t, err, labels)
	c := mustOpen(t, smallCorpus(t))
	c.Dir = t.TempDir()
	_, err = a.materialise(ctx, plan, c, plan.Conversations[1])
	assertCorrupt(t, err, channel)

	r, err = VerifyStore(ctx, s, "", limits.Default())
	if err != nil || len(r.Problems) != 2 || r.Problems[0].Key != labels || r.Problems[1].Key != channel ||
		!strings.HasPrefix(r.Problems[1].Problem, "sha256 ") {
		t.Fatalf("VerifyStore: %+v, %v", r, err)
	}
	r, err = VerifyStore(ctx, s, keys.Member(plan.Prefix, plan.Conversations[1])+"/", limits.Default())
	if err != nil || r.Objects != 3 || len(r.Problems) != 1 || r.Problems[0].Key != channel {
		t.Fatalf("VerifyStore of one conversation: %+v, %v", r, err)
	}
}

func assertCorrupt(t *testing.T, err error, key string) {
	t.Helper()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || !strings.Contains(err.Error(), "stored object "+key+" is corrupt: sha256 ") {
		t.Errorf("reading a changed %s: %v", key, err)
	}
}

// A manifest stored under a hash that is not its own is reported.
func TestVerifyStoreChecksTheManifestKey(t *testing.T) {
	ctx := context.Background()
	a, s := localActivities(t)
	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	key := keys.File(plan.Prefix, corpus.ManifestName)
	path := filepath.Join(s.Root(), filepath.FromSlash(key))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := VerifyStore(ctx, s, "", limits.Default())
	if err != nil || len(r.Problems) != 1 || r.Problems[0].Key != key || !strings.Contains(r.Problems[0].Problem, "not the "+plan.Hash+" its key names") {
		t.Fatalf("VerifyStore: %+v, %v", r, err)
	}
	if _, err := VerifyStore(ctx, s, "sums/", limits.Default()); err == nil {
		t.Error("sums/ was accepted as a prefix to verify")
	}
}

// On S3 a file is uploaded with its length, so the upload stops at its
// last byte without reading to the end: the check still runs there, and a
// file that changed after it was verified is never stored. A changed
// object in the bucket fails its reader and is reported by VerifyStore.
func TestVerifiedUploadAndReadOnS3(t *testing.T) {
	ctx := context.Background()
	s := testenv.StartMinIO(t).Store(t, "verify")
	a := &Activities{Store: s, Scratch: t.TempDir()}
	c := mustOpen(t, smallCorpus(t))
	conv := c.Manifest.Conversations[0]
	name := corpus.ChannelName(1)
	f, err := c.OpenFile(conv, name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wrong := strings.Repeat("0", 64)
	r, err := corpus.VerifiedFile(f, wrong)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "x/speaker_1.wav", r); err == nil || !strings.Contains(err.Error(), "the manifest says "+wrong) {
		t.Fatalf("put of a file that does not match: %v", err)
	}
	if ok, err := store.Exists(ctx, s, "x/speaker_1.wav"); err != nil || ok {
		t.Fatalf("a file that does not match was stored: %v, %v", ok, err)
	}

	plan, err := a.IngestLocal(ctx, IngestInput{Name: "c", Dir: c.Dir})
	if err != nil {
		t.Fatal(err)
	}
	key := keys.MemberFile(plan.Prefix, conv.ID, name)
	data, err := store.GetBytes(ctx, s, key)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := store.PutBytes(ctx, s, key, data); err != nil {
		t.Fatal(err)
	}
	c.Dir = t.TempDir()
	_, err = a.materialise(ctx, plan, c, conv.ID)
	assertCorrupt(t, err, key)
	check, err := VerifyStore(ctx, s, "", limits.Default())
	if err != nil || check.Objects != 7 || len(check.Problems) != 1 || check.Problems[0].Key != key {
		t.Fatalf("VerifyStore: %+v, %v", check, err)
	}
}

// summing is the store as the commands open it: recording the sha256 of
// every object not named by its content, checking every object it reads.
func summing(s store.Store) store.Store {
	return store.Summing{Store: s, Summed: keys.Summed, SumKey: keys.Sum, Named: keys.Named}
}

// A generated corpus is named by its recipe, so its manifest is checked
// against the sha256 recorded when it was stored: a change to the
// manifest alone, or to a file and its hash in the manifest, is found.
// Tracks, evaluations, bundles, entries, uploaded inputs and scheduled
// specs are checked too; an object stored without a recorded sha256 is
// counted, not passed as matching.
func TestVerifyStoreChecksEveryObjectByItsRecordedHash(t *testing.T) {
	ctx := context.Background()
	local, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st := summing(local)
	dir := smallCorpus(t)
	m, err := corpus.ReadManifest(dir, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	m.Kind, m.Preset, m.Seed = corpus.KindMPTB, "tiny", 7
	root := keys.Corpus(GeneratedCorpusHash("tiny", 7, backend.Config{}))
	raw, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	put := func(key string, data []byte) {
		t.Helper()
		if err := store.PutBytes(ctx, st, key, data); err != nil {
			t.Fatal(err)
		}
	}
	for _, conv := range m.Conversations {
		entry, _ := json.Marshal(conv)
		put(keys.Entry(root, conv.ID), entry)
		for _, name := range corpus.FilesOf(m.Kind, conv) {
			data, err := os.ReadFile(filepath.Join(dir, conv.ID, name))
			if err != nil {
				t.Fatal(err)
			}
			put(keys.MemberFile(root, conv.ID, name), data)
		}
	}
	put(keys.File(root, corpus.ManifestName), raw)
	track := keys.Track("sys", "corp", "c1", "eot")
	evaluation := "evaluations/sys/corp/e.json"
	results := keys.Bundle("b1", "results.json")
	for _, k := range []string{track, evaluation, results} {
		put(k, []byte(`{"value": 0.123456}`))
	}
	input := []byte("model weights")
	sum := sha256.Sum256(input)
	inputKey := keys.Input(hex.EncodeToString(sum[:]))
	put(inputKey, input)
	if err := store.PutBytes(ctx, local, "tracks/old/corp/c1.eot.json", []byte("{}")); err != nil { // no sum: an older store
		t.Fatal(err)
	}
	r, err := VerifyStore(ctx, local, "", limits.Default())
	if err != nil || len(r.Problems) != 0 || r.Corpora != 1 || len(r.Unrecorded) != 1 || r.Unrecorded[0] != "tracks/old/corp/c1.eot.json" {
		t.Fatalf("clean store: %+v, %v", r, err)
	}
	clean := r.Objects

	path := func(key string) string { return filepath.Join(local.Root(), filepath.FromSlash(key)) }
	// One character of the manifest, then a channel and its hash in the
	// manifest and the entry: both agree with each other, not with what
	// was stored.
	manifest := keys.File(root, corpus.ManifestName)
	edited := strings.Replace(string(raw), `"seed": 7`, `"seed": 7 `, 1)
	conv := m.Conversations[0]
	channel := keys.MemberFile(root, conv.ID, corpus.ChannelName(1))
	wav, err := os.ReadFile(path(channel))
	if err != nil {
		t.Fatal(err)
	}
	wav[len(wav)-1] ^= 1
	newSum := sha256.Sum256(wav)
	edited = strings.Replace(edited, conv.Files[corpus.ChannelName(1)], hex.EncodeToString(newSum[:]), 1)
	entry, err := os.ReadFile(path(keys.Entry(root, conv.ID)))
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range map[string][]byte{path(manifest): []byte(edited), path(channel): wav,
		path(keys.Entry(root, conv.ID)): []byte(strings.Replace(string(entry), conv.Files[corpus.ChannelName(1)], hex.EncodeToString(newSum[:]), 1))} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{track, evaluation, results, inputKey} {
		flipByte(t, path(k))
	}
	r, err = VerifyStore(ctx, local, "", limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.Key)
	}
	want := []string{manifest, keys.Entry(root, conv.ID), results, evaluation, inputKey, track}
	if !slices.Equal(got, want) || r.Objects != clean {
		t.Errorf("problems %v (%d objects checked)\nwant     %v (%d)", r.Problems, r.Objects, want, clean)
	}
	if !strings.Contains(r.Problems[0].Problem, "the sha256 recorded when it was stored is ") {
		t.Errorf("manifest: %s", r.Problems[0].Problem)
	}
	if r, err := VerifyStore(ctx, local, "bundles/", limits.Default()); err != nil || len(r.Problems) != 1 || r.Problems[0].Key != results {
		t.Errorf("bundles/: %+v, %v", r, err)
	}
}
