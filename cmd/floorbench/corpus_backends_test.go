package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floorbench/floorbench/internal/backend/backendfixture"
)

// A corpus made through chat and speech endpoints is made again, byte for
// byte, from its exported cache after both servers are gone. A cached
// utterance whose bytes changed (issue 42, item 2) is never used nor
// exported: export-cache refuses it naming its key, a generation requests
// it again and replaces it, and from a --cache folder with the servers
// gone the generation fails naming its key.
func TestGenerateExportCacheAndReplayWithoutTheModels(t *testing.T) {
	chat := backendfixture.ChatServer(t, func(attempt int, user string) string {
		if attempt == 1 && backendfixture.Hash(user)%4 == 0 {
			return "malformed"
		}
		return ""
	})
	speech := backendfixture.SpeechServer(t)
	speech.SetTransient(backendfixture.FaultsEvery(8, "429"))
	dir := t.TempDir()
	env := []string{"FLOORBENCH_DIALOGUE_API_KEY=" + backendfixture.Key, "FLOORBENCH_VOICES_API_KEY=" + backendfixture.Key}
	flags := []string{"--preset", "tiny", "--seed", "1", "--dialogue", "openai-chat", "--dialogue-endpoint", chat.URL + "/v1",
		"--dialogue-model", "test-chat", "--voices", "openai-speech", "--voices-endpoint", speech.URL + "/v1", "--voices-model", "test-voices",
		"--voices-names", strings.Join(backendfixture.EspeakVoices(20), ","), "--voices-format", "pcm", "-o", "json"}
	generate := func(out string, more ...string) (writtenCorpus, string) {
		t.Helper()
		var w writtenCorpus
		stdout, stderr, code, _ := runWith(t, env, append(append([]string{"corpus", "generate", "--out", out}, flags...), more...)...)
		if code != 0 {
			t.Fatalf("generate: exit %d: %s", code, stderr)
		}
		dec := json.NewDecoder(strings.NewReader(stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&w); err != nil {
			t.Fatalf("generate -o json: %v\n%s", err, stdout)
		}
		return w, stderr
	}
	first, stderr := generate(filepath.Join(dir, "first"), "--store-dir", filepath.Join(dir, "store"), "--jobs", "3")
	g := first.Generative
	if g == nil || g.DialogueFetched <= 12 || g.DialogueCached != 0 || g.VoicesFetched < 36 || g.VoicesRequests <= g.VoicesFetched {
		t.Fatalf("first generation: %+v", g)
	}
	if !strings.Contains(stderr, "dialogue: ") || strings.Contains(stderr, backendfixture.Key) {
		t.Fatalf("stderr: %s", stderr)
	}

	utterance, _ := flipTwoBytes(t, filepath.Join(dir, "store"))
	_, stderr, code, _ := runWith(t, env, "corpus", "export-cache", first.Corpus, "--out", filepath.Join(dir, "cache"), "--store-dir", filepath.Join(dir, "store"))
	if code == 0 || !strings.Contains(stderr, "stored object "+utterance+" is corrupt: sha256 ") {
		t.Fatalf("export of a changed utterance: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "cache")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused export left its folder: %v", err)
	}
	remade, stderr := generate(filepath.Join(dir, "remade"), "--store-dir", filepath.Join(dir, "store"), "--jobs", "3")
	if r := remade.Generative; remade.ManifestSHA256 != first.ManifestSHA256 || r.VoicesReplaced != 1 || r.VoicesFetched != 1 || r.DialogueFetched != 0 ||
		!strings.Contains(stderr, "0 answers and 1 utterances whose bytes did not match their recorded sums: requested again and replaced") {
		t.Fatalf("generation over a changed utterance: corpus.json %s (first %s), %+v: %s", remade.ManifestSHA256, first.ManifestSHA256, r, stderr)
	}
	var exported exportCacheResult
	runJSON(t, &exported, "corpus", "export-cache", first.Corpus, "--out", filepath.Join(dir, "cache"), "--store-dir", filepath.Join(dir, "store"), "-o", "json")
	if exported.Outputs != int(g.DialogueFetched+g.VoicesFetched) {
		t.Fatalf("exported %d outputs of %d fetched", exported.Outputs, g.DialogueFetched+g.VoicesFetched)
	}

	chat.Close()
	speech.Close()
	utterance, restore := flipTwoBytes(t, filepath.Join(dir, "cache"))
	_, stderr, code, _ = runWith(t, env, append([]string{"corpus", "generate", "--out", filepath.Join(dir, "refused"), "--cache", filepath.Join(dir, "cache"), "--jobs", "1"}, flags...)...)
	if code == 0 || !strings.Contains(stderr, "generative cache: stored object "+utterance+" is corrupt: sha256 ") || !strings.Contains(stderr, "requesting it again: ") {
		t.Fatalf("generation from a --cache folder with a changed utterance, servers gone: exit %d: %s", code, stderr)
	}
	restore()
	again, _ := generate(filepath.Join(dir, "again"), "--cache", filepath.Join(dir, "cache"), "--jobs", "1")
	if again.ManifestSHA256 != first.ManifestSHA256 {
		t.Fatalf("corpus.json %s from the cache, %s first", again.ManifestSHA256, first.ManifestSHA256)
	}
	if a := again.Generative; a.DialogueRequests != 0 || a.VoicesRequests != 0 || a.DialogueCached != g.DialogueFetched+g.DialogueCached || a.VoicesCached != g.VoicesFetched+g.VoicesCached {
		t.Fatalf("replay: %+v", a)
	}
}

func TestGenerateBackendFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dialogue", "openai-chat"}, "--dialogue-endpoint: missing"},
		{[]string{"--dialogue-model", "m"}, "--dialogue-endpoint and --dialogue-model: only with --dialogue openai-chat"},
		{[]string{"--voices", "openai-speech", "--voices-endpoint", "http://127.0.0.1:1/v1", "--voices-model", "k", "--voices-names", "a,b,c"},
			"--voices-names: 3 voices; preset tiny needs 4 dev and 5 test voices: name at least 9"},
		{[]string{"--voices", "piper"}, `--voices "piper": want offline or openai-speech`},
	} {
		_, stderr, code := run(t, append([]string{"corpus", "generate", "--preset", "tiny", "--seed", "1", "--out", out}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// The hosted speech API's 11 voices give the tiny preset the 4 dev and 5
// test voices it needs: generation gets past the voice check, says which
// voices are which, and asks the endpoint (which here refuses).
func TestElevenHostedVoicesVoiceTheTinyPreset(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer srv.Close()
	_, stderr, code := run(t, "corpus", "generate", "--preset", "tiny", "--seed", "1", "--out", filepath.Join(t.TempDir(), "c"),
		"--cache", t.TempDir(), "--voices", "openai-speech", "--voices-endpoint", srv.URL+"/v1", "--voices-model", "tts-1",
		"--voices-names", "alloy,ash,ballad,coral,echo,fable,nova,onyx,sage,shimmer,verse")
	if want := "voices: dev ash, echo, nova, shimmer; test alloy, ballad, coral, fable, onyx, sage, verse"; code == 0 || !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, "answered 400") || asked.Load() == 0 {
		t.Errorf("exit %d, %d requests, stderr %q; want %q and the endpoint's refusal", code, asked.Load(), stderr, want)
	}
}

// flipTwoBytes changes two bytes of the first cached utterance stored in
// the folder root, under its recorded sum, and returns its key and a
// function that puts its bytes back.
func flipTwoBytes(t *testing.T, root string) (key string, restore func()) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "generative", "speech", "*"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no cached utterance in %s: %v", root, err)
	}
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Clone(data)
	changed[len(changed)/2] ^= 0x40
	changed[len(changed)/2+1] ^= 0x40
	if err := os.WriteFile(names[0], changed, 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, names[0])
	return filepath.ToSlash(rel), func() {
		t.Helper()
		if err := os.WriteFile(names[0], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
