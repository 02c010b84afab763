package activities

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
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
	c, err := corpus.Open(dir)
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
	r, err := VerifyStore(ctx, s, "")
	if err != nil || r.Corpora != 1 || r.Objects != 7 || len(r.Problems) != 0 {
		t.Fatalf("clean store: %+v, %v", r, err)
	}
	if _, err := a.LoadCorpus(ctx, plan); err != nil {
		t.Fatal(err)
	}

	labels := plan.Prefix + "/" + plan.Conversations[0] + "/" + corpus.EventsName
	channel := plan.Prefix + "/" + plan.Conversations[1] + "/" + corpus.ChannelName(2)
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

	r, err = VerifyStore(ctx, s, "")
	if err != nil || len(r.Problems) != 2 || r.Problems[0].Key != labels || r.Problems[1].Key != channel ||
		!strings.HasPrefix(r.Problems[1].Problem, "sha256 ") {
		t.Fatalf("VerifyStore: %+v, %v", r, err)
	}
	r, err = VerifyStore(ctx, s, plan.Prefix+"/"+plan.Conversations[1]+"/")
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
	key := plan.Prefix + "/" + corpus.ManifestName
	path := filepath.Join(s.Root(), filepath.FromSlash(key))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := VerifyStore(ctx, s, "")
	if err != nil || len(r.Problems) != 1 || r.Problems[0].Key != key || !strings.Contains(r.Problems[0].Problem, "not the "+plan.Hash+" its key names") {
		t.Fatalf("VerifyStore: %+v, %v", r, err)
	}
	if _, err := VerifyStore(ctx, s, "bundles/"); err == nil {
		t.Error("a prefix outside corpora/ was accepted")
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
	key := plan.Prefix + "/" + conv.ID + "/" + name
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
	check, err := VerifyStore(ctx, s, "")
	if err != nil || check.Objects != 7 || len(check.Problems) != 1 || check.Problems[0].Key != key {
		t.Fatalf("VerifyStore: %+v, %v", check, err)
	}
}
