package backend_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/backend/backendfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/generate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

var secrets = backend.Secrets{Dialogue: backendfixture.Key, Voices: backendfixture.Key}

// fast are request bounds that make a dead server fail in milliseconds.
var fast = backend.Operations{DialogueConcurrency: 3, VoicesConcurrency: 3, Timeout: 30 * time.Second, Attempts: 3, Backoff: 5 * time.Millisecond}

func config(chat, speech *backendfixture.Endpoint) backend.Config {
	return backend.Config{Dialogue: backend.OpenAIChat, DialogueEndpoint: chat.URL + "/v1", DialogueModel: "test-chat",
		Voices: backend.OpenAISpeech, VoicesEndpoint: speech.URL + "/v1", VoicesModel: "test-voices", VoicesNames: backendfixture.EspeakVoices(25)}
}

func generateTiny(t *testing.T, c backend.Config, cache store.Store, out string, jobs int) (*corpus.Manifest, error) {
	t.Helper()
	b, err := backend.Open(c, secrets, fast, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	return generate.Corpus(context.Background(), generate.Options{Preset: "tiny", Seed: 1, Out: out, Jobs: jobs, Backends: b})
}

func newStore(t *testing.T) store.Store {
	st, err := store.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func generativeKeys(t *testing.T, st store.Store) []string {
	ks, err := st.List(context.Background(), keys.Generative)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// A tiny corpus through both backends, with a speech server killed half
// way and servers that answer 429, 503, cut-off bodies and, to first
// tries of about two thirds of the prompts, bad answers. The resumed
// generation requests nothing already cached; a third generation (one
// job instead of two, servers still up) requests nothing at all and
// writes the same bytes.
func TestTinyThroughBothBackendsResumesAndReplays(t *testing.T) {
	chat := backendfixture.ChatServer(t, func(attempt int, user string) string {
		faults := []string{"", "malformed", "truncated", "speaker", "", "runaway", "empty", "missing", ""}
		if attempt > 1 {
			return ""
		}
		return faults[backendfixture.Hash(user)%uint64(len(faults))]
	})
	chat.SetTransient(backendfixture.FaultsEvery(3, "429", "503", "cut"))
	dying := backendfixture.SpeechServer(t)
	dying.SetDieAfter(40)
	cache := newStore(t)
	first := filepath.Join(t.TempDir(), "first")
	_, err := generateTiny(t, config(chat, dying), cache, first, 2)
	if err == nil || !strings.Contains(err.Error(), "/audio/speech: request failed") {
		t.Fatalf("generation with a killed speech server: %v", err)
	}
	if _, statErr := os.Stat(filepath.Join(first, corpus.ManifestName)); statErr == nil {
		t.Fatal("a failed generation left a corpus.json")
	}
	before := generativeKeys(t, cache)
	if _, answered := dying.Counts(); len(answered) != 40 || len(before) < 40 {
		t.Fatalf("the killed server answered %d requests; %d outputs cached", len(answered), len(before))
	}

	speech := backendfixture.SpeechServer(t)
	speech.SetTransient(backendfixture.FaultsEvery(10, "503", "429"))
	m, err := generateTiny(t, config(chat, speech), cache, first+"-resumed", 2)
	if err != nil {
		t.Fatal(err)
	}
	_, answered := speech.Counts()
	for _, k := range answered {
		if slices.Contains(before, k) {
			t.Fatalf("the resumed generation requested %s, which was cached", k)
		}
	}
	checkCorpus(t, first+"-resumed", m, cache)
	if tries := chatKeys(m); tries <= len(m.Conversations) {
		t.Fatalf("%d chat answers for %d conversations: no rejected answer was retried", tries, len(m.Conversations))
	}
	if n, answered := chat.Counts(); n <= len(answered) {
		t.Fatalf("%d chat requests for %d answers: no 429, 503 or cut answer was retried", n, len(answered))
	}

	if testing.Short() {
		t.Skip("the replay, a third generation of the tiny corpus: skipped with -short")
	}
	chatBefore, _ := chat.Counts()
	speechBefore, _ := speech.Counts()
	replay := filepath.Join(t.TempDir(), "replay")
	if _, err := generateTiny(t, config(chat, speech), cache, replay, 1); err != nil {
		t.Fatal(err)
	}
	chatAfter, _ := chat.Counts()
	speechAfter, _ := speech.Counts()
	if chatAfter != chatBefore || speechAfter != speechBefore {
		t.Fatalf("the replay made %d chat and %d speech requests", chatAfter-chatBefore, speechAfter-speechBefore)
	}
	sameBytes(t, first+"-resumed", replay)
	t.Logf("chat: %d requests; speech: %d requests before the kill, %d after; %d outputs cached", chatBefore, 40, speechBefore, len(generativeKeys(t, cache)))
}

// checkCorpus checks a corpus made through both backends: it passes
// corpus.Check, records both backends and every output it was made from,
// each of which is in the cache, and casts only the named voices.
func checkCorpus(t *testing.T, dir string, m *corpus.Manifest, cache store.Store) {
	t.Helper()
	r, err := corpus.Check(dir, limits.Default())
	if err != nil || len(r.Problems) > 0 {
		t.Fatalf("check: %v %v", err, r.Problems)
	}
	if len(m.Backends) != 2 || m.Backends[0].Name != backend.OpenAIChat || m.Backends[1].Model != "test-voices" {
		t.Fatalf("backends %+v", m.Backends)
	}
	for _, c := range m.Conversations {
		chats := 0
		for _, k := range c.CacheKeys {
			if ok, err := store.Exists(context.Background(), cache, k); !ok || err != nil {
				t.Fatalf("%s: %s not in the cache (%v)", c.ID, k, err)
			}
			if strings.HasPrefix(k, keys.Generative+"chat/") {
				chats++
			}
		}
		if chats < 1 || len(c.CacheKeys)-chats < 3 {
			t.Fatalf("%s: %d chat and %d speech keys", c.ID, chats, len(c.CacheKeys)-chats)
		}
		for _, v := range c.Voices {
			if !strings.HasPrefix(v, "openai-speech:test-voices/") {
				t.Fatalf("%s: voice %s", c.ID, v)
			}
		}
	}
}

func chatKeys(m *corpus.Manifest) int {
	n := 0
	for _, c := range m.Conversations {
		for _, k := range c.CacheKeys {
			if strings.HasPrefix(k, keys.Generative+"chat/") {
				n++
			}
		}
	}
	return n
}

func sameBytes(t *testing.T, a, b string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, path)
		x, _ := os.ReadFile(path)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs (%v)", rel, err)
		}
		n++
		return nil
	})
	if err != nil || n < 12*3 {
		t.Fatalf("compared %d files: %v", n, err)
	}
}

// A model that never answers as asked fails the generation with one
// error naming the conversation, the tries and the last fault.
func TestRejectedAnswersNameTheConversation(t *testing.T) {
	chat := backendfixture.ChatServer(t, func(int, string) string { return "speaker" })
	speech := backendfixture.SpeechServer(t)
	out := filepath.Join(t.TempDir(), "c")
	c := config(chat, speech)
	_, err := generateTiny(t, c, newStore(t), out, 1)
	if !errors.Is(err, synth.ErrRejectedAnswers) {
		t.Fatalf("err = %v", err)
	}
	want := "conversation tiny-00-2p-casual: dialogue: 3 answers failed validation (last: line 1: speaker "
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %q, want it to start %q", err, want)
	}
	if n, _ := chat.Counts(); n != 3 {
		t.Fatalf("%d chat requests for 3 tries", n)
	}
	if _, statErr := os.Stat(filepath.Join(out, corpus.ManifestName)); statErr == nil {
		t.Fatal("a failed generation left a corpus.json")
	}
}
