package keys

import (
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/digest"
)

// The keys follow the store layout of docs/architecture.md#store-layout,
// and the hashes that name outputs are identity hashes (digest.Identity).
func TestKeysFollowTheStoreLayout(t *testing.T) {
	type task string
	identity := struct{ V int }{3}
	idHash := digest.Identity([]byte(`{"V":3}`))
	for _, c := range []struct{ got, want string }{
		{Corpus("c0"), "corpora/c0"},
		{Entry(Corpus("c0"), "tiny-00"), "corpora/c0/entries/tiny-00.json"},
		{Track("s1", "c0", "tiny-00", task("eot")), "tracks/s1/c0/tiny-00.eot.json"},
		{ModelOutput("m2", "c0", "tiny-00"), "model-outputs/m2/c0/tiny-00.bin"},
		{Evaluation("s1", "c0", identity), "evaluations/s1/c0/" + idHash + ".json"},
		{Audit("c0", identity), "audits/c0/" + idHash + ".json"},
		{Input("ab12"), "inputs/ab12"},
		{Bundle("b9", "results.json"), "bundles/b9/results.json"},
		{Bundle("b9", ""), "bundles/b9/"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

// A generated corpus is named by preset, seed and generator version, each
// of which changes the name.
func TestGeneratedCorpusHashCoversPresetSeedAndGenerator(t *testing.T) {
	base := GeneratedCorpus("mptb", 1, 4, nil)
	if base != digest.Identity([]byte("mptb-generate\x00mptb\x001\x004")) {
		t.Errorf("GeneratedCorpus %s is not the hash of its identity", base)
	}
	for _, other := range []string{GeneratedCorpus("tiny", 1, 4, nil), GeneratedCorpus("mptb", 2, 4, nil), GeneratedCorpus("mptb", 1, 5, nil)} {
		if other == base {
			t.Errorf("a different preset, seed or generator keeps the hash %s", base)
		}
	}
}

// Generative outputs are named by the request that made them; a corpus
// made with generative backends is named apart from the offline one.
func TestGenerativeKeys(t *testing.T) {
	chat, speech := ChatAnswer([]byte(`{"model":"m"}`)), Speech([]byte(`{"model":"m"}`))
	if chat != "generative/chat/"+digest.Identity([]byte(`{"model":"m"}`))+".json" || speech != "generative/speech/"+digest.Identity([]byte(`{"model":"m"}`)) {
		t.Fatalf("keys %s, %s", chat, speech)
	}
	if ChatAnswer([]byte(`{"model":"n"}`)) == chat {
		t.Fatal("another request, the same key")
	}
	for key, want := range map[string]bool{chat: true, speech: true, "generative/chat/" + digest.Identity(nil): false,
		"generative/speech/" + digest.Identity(nil) + ".json": false, "corpora/x/corpus.json": false, "generative/chat/../../x.json": false,
		"generative/other/" + digest.Identity(nil): false} {
		if IsGenerative(key) != want {
			t.Errorf("IsGenerative(%q) = %v", key, !want)
		}
	}
	offline := GeneratedCorpus("tiny", 1, 4, nil)
	if GeneratedCorpus("tiny", 1, 4, []string{"openai-chat", "m"}) == offline {
		t.Fatal("backends do not change the corpus hash")
	}
}

// A bundle's manifest and a schedule's records are found again from the
// keys a store lists; other keys are not taken for them.
func TestBundlesAndSchedulesFromListedKeys(t *testing.T) {
	for key, want := range map[string]string{
		"bundles/0123abcd/manifest.json":             "0123abcd",
		"bundles/0123abcd/results.json":              "",
		"bundles/0123abcd/predictions/manifest.json": "",
		"sums/bundles/0123abcd/manifest.json":        "",
		"bundles//manifest.json":                     "",
	} {
		if id, ok := BundleOfManifest(key); id != want && ok || ok != (want != "") {
			t.Errorf("BundleOfManifest(%q) = %q, %v; want %q", key, id, ok, want)
		}
	}
	if k := BundleManifest("ab"); k != "bundles/ab/manifest.json" {
		t.Errorf("BundleManifest: %s", k)
	}
	at := time.Date(2026, 12, 3, 2, 30, 0, 0, time.FixedZone("CET", 3600))
	run := ScheduleRun("nightly", at)
	if run != "schedules/nightly/runs/20261203T013000Z/" {
		t.Errorf("ScheduleRun: %s", run)
	}
	if name, ok := ScheduleOf(run + "run.json"); name != "nightly" || !ok {
		t.Errorf("ScheduleOf(%s) = %q, %v", run, name, ok)
	}
	if _, ok := ScheduleOf("specs/x.yaml"); ok {
		t.Error("ScheduleOf took a spec for a schedule's record")
	}
	if k := Spec("5dca"); k != "specs/5dca.yaml" {
		t.Errorf("Spec: %s", k)
	}
}
