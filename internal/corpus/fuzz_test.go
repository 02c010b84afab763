package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/limits"
)

const manifestSeed = `{"schema_version":1,"kind":"mptb","preset":"tiny","seed":1,"code_version":"x","sample_rate_hz":16000,
"conversations":[{"id":"c1","split":"dev","interaction_type":"casual","speakers":2,"topic":"t","voices":["a","b"],
"duration_s":1,"samples":16000,"snr_db":[20,30],"noise":["white","pink"],
"files":{"events.json":"` + sha + `","speaker_1.wav":"` + sha + `","speaker_2.wav":"` + sha + `"}}]}`

const sha = "0000000000000000000000000000000000000000000000000000000000000000"

const eventsSeed = `{"schema_version":1,"conversation_id":"c1","duration_s":10,"speakers":2,"events":[
{"kind":"TURN","speaker":1,"start":0.5,"end":4,"text":"a b","words":2,"ending":"yielded","holds":[{"start":1,"end":2,"after_question":true}],"restarts":[{"start":2.5,"end":2.9}],"floor_before":0,"floor_after":0},
{"kind":"BACKCHANNEL","speaker":2,"start":1.2,"end":1.5,"words":1,"floor_before":1,"floor_after":1}]}`

func TestParseManifestRejectsPathsAndUnknownFields(t *testing.T) {
	t.Parallel()
	if _, err := ParseManifest([]byte(manifestSeed), limits.Default()); err != nil {
		t.Fatalf("seed manifest: %v", err)
	}
	cases := map[string]struct{ from, to, want string }{
		"traversal id":            {`"id":"c1"`, `"id":"../etc"`, `id (not quoted)`},
		"unknown field":           {`"preset":"tiny"`, `"preset":"tiny","extra":1`, `unknown field "extra"`},
		"extra file":              {`"events.json":`, `"../x.wav":"` + sha + `","events.json":`, "want exactly"},
		"bad hash":                {`"speaker_1.wav":"` + sha, `"speaker_1.wav":"zz` + sha[2:], "not 64 hex digits"},
		"duration":                {`"duration_s":1`, `"duration_s":2`, "duration_s 2 does not match 16000 samples (1 s at 16000 Hz)"},
		"zero length":             {`"duration_s":1,"samples":16000`, `"duration_s":0,"samples":0`, "samples 0: a conversation has at least one sample"},
		"kind":                    {`"kind":"mptb"`, `"kind":"switchboard"`, `kind "switchboard"`},
		"ingested kind":           {`"kind":"mptb"`, `"kind":"turnbench"`, `channels []: want one name per speaker (2)`},
		"generated with channels": {`"voices"`, `"channels":["A","B"],"voices"`, "no source channels"},
	}
	for name, c := range cases {
		_, err := ParseManifest([]byte(strings.Replace(manifestSeed, c.from, c.to, 1)), limits.Default())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func TestParseEventsValidates(t *testing.T) {
	t.Parallel()
	if _, err := ParseEvents([]byte(eventsSeed)); err != nil {
		t.Fatalf("seed events: %v", err)
	}
	cases := map[string]struct{ from, to, want string }{
		"speaker":           {`"speaker":2`, `"speaker":3`, "speaker 3 of 2"},
		"kind":              {`"BACKCHANNEL"`, `"LAUGH"`, `unknown kind "LAUGH"`},
		"outside":           {`"end":4`, `"end":11`, "not a span inside"},
		"hold":              {`"start":1,"end":2`, `"start":1,"end":5`, "hold 0"},
		"ending":            {`"yielded"`, `"stolen"`, `ending "stolen"`},
		"bc holds":          {`"floor_before":1,"floor_after":1}`, `"floor_before":1,"floor_after":1,"ending":"yielded"}`, "only TURN"},
		"restart outside":   {`"start":2.5,"end":2.9`, `"start":2.5,"end":4.5`, "restart 0"},
		"restart in a hold": {`"start":2.5,"end":2.9`, `"start":1.5,"end":2.9`, "meets hold"},
		"bc restarts":       {`"floor_before":1,"floor_after":1}`, `"floor_before":1,"floor_after":1,"restarts":[{"start":1.3,"end":1.4}]}`, "only TURN"},
	}
	for name, c := range cases {
		_, err := ParseEvents([]byte(strings.Replace(eventsSeed, c.from, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(manifestSeed))
	f.Add([]byte(`{"schema_version":1,"kind":"mptb","sample_rate_hz":16000,"conversations":[]}`))
	f.Add([]byte(strings.Replace(strings.Replace(manifestSeed, `"conversations"`,
		`"backends":[{"stage":"dialogue","name":"openai-chat","model":"m","params":{"temperature":"0.8"}}],"conversations"`, 1),
		`"files"`, `"cache_keys":["generative/chat/00112233445566778899aabbccddeeff.json","generative/speech/00112233445566778899aabbccddeeff"],"files"`, 1)))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data, limits.Default())
		if err != nil {
			return
		}
		// Whatever a manifest says, every path it yields stays inside the corpus.
		c := &Corpus{Dir: "/corpus", Manifest: m}
		for _, conv := range m.Conversations {
			if !dialogue.ValidID(conv.ID) {
				t.Fatalf("accepted id %q", conv.ID)
			}
			for _, k := range conv.CacheKeys {
				if !strings.HasPrefix(k, "generative/") || strings.Contains(k, "..") {
					t.Fatalf("accepted cache key %q", k)
				}
			}
			for _, p := range c.ChannelPaths(conv) {
				if rel, err := filepath.Rel("/corpus", p); err != nil || strings.HasPrefix(rel, "..") || filepath.Dir(filepath.Dir(p)) != "/corpus" {
					t.Fatalf("path %s escapes the corpus", p)
				}
			}
		}
	})
}

func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(eventsSeed))
	f.Add([]byte(`{"schema_version":1,"conversation_id":"c","duration_s":1,"speakers":1,"events":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseEvents(data)
		if err != nil {
			return
		}
		for _, e := range l.Events {
			if !(e.Start >= 0 && e.End <= l.Duration && e.Start < e.End) || e.Speaker < 1 || e.Speaker > l.Speakers {
				t.Fatalf("accepted event %+v in a %v s, %d-speaker log", e, l.Duration, l.Speakers)
			}
			for _, r := range e.Restarts {
				if !(r.Start > e.Start && r.Start < r.End && r.End < e.End) {
					t.Fatalf("accepted restart %+v outside its turn %+v", r, e)
				}
			}
		}
	})
}

func TestReadManifestSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Open(dir, limits.Default()); err == nil || !strings.Contains(err.Error(), "no corpus.json") {
		t.Fatalf("err = %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestName), []byte("{"), 0o644)
	if _, err := Open(dir, limits.Default()); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ManifestName)) {
		t.Fatalf("err = %v, want one naming the file", err)
	}
}
