package backend_test

import (
	"context"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/backend/backendfixture"
	floorconfig "github.com/floorbench/floorbench/internal/config"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/testenv"
)

// The cache works in MinIO as in a folder: one conversation's script and
// one utterance are requested once, found there the second time, and
// exported to a folder that serves them with no server at all.
func TestCacheInMinIOAndExport(t *testing.T) {
	ctx := context.Background()
	minio := testenv.StartMinIO(t).Store(t, "cache")
	cache := floorconfig.Summing(minio)
	chat := backendfixture.ChatServer(t, func(int, string) string { return "" })
	speech := backendfixture.SpeechServer(t)
	tiny, _ := synth.PresetByName("tiny", 1)
	spec := tiny.Conversations[5]
	voice := synth.Voice{ID: "openai-speech:test-voices/en-us+f2", Engine: backend.OpenAISpeech, Name: "en-us+f2"}
	use := func(c backend.Config, st store.Store) ([]string, []float32) {
		t.Helper()
		b, err := backend.Open(c, secrets, fast, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := b.Backends.Scripts.WriteScript(ctx, spec, synth.StreamFor(1, spec.ID, synth.StageScript))
		if err != nil {
			t.Fatal(err)
		}
		tts := b.Backends.Engines[backend.OpenAISpeech]
		x, err := tts.Synthesize(ctx, s.Lines[0].Sentences[0].Text, voice)
		if err != nil {
			t.Fatal(err)
		}
		return append(s.Sources, tts.(synth.KeyedTTS).SpeechKey(s.Lines[0].Sentences[0].Text, voice)), x
	}
	cfg := config(chat, speech)
	sources, first := use(cfg, cache)
	again, second := use(cfg, cache)
	chats, _ := chat.Counts()
	speeches, _ := speech.Counts()
	if chats != 1 || speeches != 1 || !slices.Equal(sources, again) || !slices.Equal(first, second) || len(first) == 0 {
		t.Fatalf("%d chat and %d speech requests for two uses; sources %v then %v", chats, speeches, sources, again)
	}

	dir := t.TempDir()
	local, _ := store.NewLocal(dir)
	m := &corpus.Manifest{Conversations: []corpus.Conversation{{ID: spec.ID, CacheKeys: sources}}}
	if n, err := backend.ExportCache(ctx, m, cache, floorconfig.Summing(local)); err != nil || n != 2 {
		t.Fatalf("exported %d: %v", n, err)
	}
	chat.Close()
	speech.Close()
	fromFolder, third := use(cfg, floorconfig.Summing(local))
	if !slices.Equal(fromFolder, sources) || !slices.Equal(third, first) {
		t.Fatal("the exported folder serves other outputs")
	}
	m.Conversations[0].CacheKeys = append(m.Conversations[0].CacheKeys, "generative/speech/00000000000000000000000000000000")
	if _, err := backend.ExportCache(ctx, m, cache, floorconfig.Summing(local)); err == nil {
		t.Fatal("a key missing from the store was exported")
	}
}
