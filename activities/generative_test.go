package activities

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/backend/backendfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
)

// A sweep's generated corpus with generative backends: named apart from
// the offline one, its conversations made through the endpoints with the
// worker's API keys, their outputs cached in the sweep's store and listed
// in the entries, and the backends recorded in corpus.json.
func TestGenerateThroughBackends(t *testing.T) {
	ctx := context.Background()
	chat := backendfixture.ChatServer(t, func(int, string) string { return "" })
	speech := backendfixture.SpeechServer(t)
	a, _, local := recording(t)
	a.Generative = &GenerativeSettings{Secrets: backend.Secrets{Dialogue: backendfixture.Key, Voices: backendfixture.Key}}
	cfg := backend.Config{Dialogue: backend.OpenAIChat, DialogueEndpoint: chat.URL + "/v1", DialogueModel: "test-chat",
		Voices: backend.OpenAISpeech, VoicesEndpoint: speech.URL + "/v1", VoicesModel: "test-voices", VoicesNames: backendfixture.EspeakVoices(18)}
	p, err := a.PlanGenerated(ctx, PlanGeneratedInput{Name: "llm", Preset: "tiny", Seed: 1, Backends: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash == GeneratedCorpusHash("tiny", 1, backend.Config{}) || p.Backends.DialogueModel != "test-chat" {
		t.Fatalf("plan %+v", p)
	}
	short := cfg
	short.VoicesNames = short.VoicesNames[:5]
	_, err = a.PlanGenerated(ctx, PlanGeneratedInput{Name: "few", Preset: "tiny", Seed: 1, Backends: short})
	assertBadInput(t, "too few voices", err, "corpus few: generate.voices_names: 5 voices; preset tiny needs 4 dev and 5 test voices: name at least 9")

	p.Conversations = p.Conversations[:2]
	for _, id := range p.Conversations {
		if err := a.GenerateConversation(ctx, GenerateInput{Prefix: p.Prefix, Preset: p.Preset, Seed: p.Seed, Conversation: id, Backends: p.Backends}); err != nil {
			t.Fatal(err)
		}
		var e corpus.Conversation
		if err := json.Unmarshal([]byte(stored(t, local, keys.Entry(p.Prefix, id))), &e); err != nil {
			t.Fatal(err)
		}
		if len(e.CacheKeys) < 3 || !strings.HasPrefix(e.Voices[0], "openai-speech:test-voices/") {
			t.Fatalf("%s: entry %+v", id, e)
		}
		for _, k := range e.CacheKeys {
			if ok, err := store.Exists(ctx, local, k); !ok || err != nil {
				t.Fatalf("%s: %s not cached (%v)", id, k, err)
			}
		}
	}
	if err := a.FinalizeCorpus(ctx, FinalizeInput{Plan: p}); err != nil {
		t.Fatal(err)
	}
	m, err := corpus.ParseManifest([]byte(stored(t, local, keys.File(p.Prefix, corpus.ManifestName))), limits.Default())
	if err != nil || len(m.Backends) != 2 || m.Backends[0].Model != "test-chat" {
		t.Fatalf("manifest backends %+v, %v", m, err)
	}
}
