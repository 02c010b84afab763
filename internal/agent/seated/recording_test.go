package seated

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
)

func validRecording() *Recording {
	return &Recording{SchemaVersion: RecordingSchemaVersion, Conversation: "conv-1", Seat: 2, Speakers: 3,
		CorpusSHA256: strings.Repeat("ab", 32), Agent: "my-agent", Protocol: proto.DuplexName, Rate: 1,
		Samples: 2 * proto.FrameSamples, Duration: 0.04,
		Events: []agent.ProviderEvent{{Kind: "response_started", Time: 0.02, Name: "response_started"}}}
}

// A recording written is read back the same, its audio checked by sha256.
func TestRecordingRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := validRecording()
	out := make([]float32, r.Samples)
	out[5] = 0.5
	if err := WriteRecording(dir, "conv-1--seat2", r, out); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecording(filepath.Join(dir, "conv-1--seat2"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := back.ReadOutput(filepath.Join(dir, "conv-1--seat2"))
	if err != nil || !slices.Equal(x, out) {
		t.Fatalf("output read back %v, %v", x[:8], err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conv-1--seat2", OutputName), []byte("RIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := back.ReadOutput(filepath.Join(dir, "conv-1--seat2")); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a changed output.wav: %v", err)
	}
}

// Every field a derivation relies on is checked, the error naming it.
func TestRecordingValidation(t *testing.T) {
	cases := map[string]func(*Recording){
		"schema_version":  func(r *Recording) { r.SchemaVersion = RecordingSchemaVersion + 1 },
		"conversation_id": func(r *Recording) { r.Conversation = "../x" },
		"seat":            func(r *Recording) { r.Seat = 4 },
		"corpus_sha256":   func(r *Recording) { r.CorpusSHA256 = "x" },
		"agent":           func(r *Recording) { r.Agent = "a b" },
		"protocol":        func(r *Recording) { r.Protocol = "sip" },
		"samples":         func(r *Recording) { r.Samples, r.Duration = 7, 7.0/proto.SampleRate },
		"duration_s":      func(r *Recording) { r.Duration = 1 },
		"events[0]":       func(r *Recording) { r.Events[0].Time = 9 },
		"files":           func(r *Recording) { r.Files = map[string]string{"input.wav": strings.Repeat("0", 64)} },
	}
	for field, spoil := range cases {
		r := validRecording()
		r.Files = map[string]string{OutputName: strings.Repeat("0", 64)}
		spoil(r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(field, "[0]")) {
			t.Errorf("%s: %v", field, err)
		}
	}
	r := validRecording()
	r.Error, r.Files = "refused", nil
	if err := r.Validate(); err != nil {
		t.Errorf("a failed session without audio: %v", err)
	}
	r = validRecording()
	r.SchemaVersion, r.Files = 1, map[string]string{OutputName: strings.Repeat("0", 64)}
	if err := r.Validate(); err != nil {
		t.Errorf("a session.json of schema version 1 is still read: %v", err)
	}
}

func FuzzParseRecording(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"conversation_id":"c","seat":1,"speakers":2,"corpus_sha256":"` + strings.Repeat("a", 64) +
		`","agent":"a","protocol":"duplex","rate":1,"samples":320,"duration_s":0.02,"events":[],"files":{"output.wav":"` + strings.Repeat("b", 64) + `"}}`))
	f.Add([]byte(`{"schema_version":1,"conversation_id":"c","seat":1,"speakers":2,"corpus_sha256":"` + strings.Repeat("a", 64) +
		`","agent":"a","protocol":"realtime","rate":2,"samples":0,"duration_s":0,"events":[],"error":"refused","files":{}}`))
	f.Add([]byte(`{"schema_version":1,"unknown":true}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRecording(data)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("parsed a recording that does not validate: %v", err)
		}
	})
}
