package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/redact"
)

const sha = "0000000000000000000000000000000000000000000000000000000000000000"

const setSeed = `{"schema_version":1,"preset":"tiny-agent","seed":7,"code_version":"x","generator_version":1,"sample_rate_hz":16000,
"scenarios":[{"id":"s1","condition":"stop-on-backchannel","speakers":3,"agent_seat":2,"agent_name":"Nora",
"interaction_type":"casual","topic":"films","participants":[{"speaker":1,"name":"Sam","voice":"espeak-ng:en+m1"},{"speaker":3,"name":"Tom","voice":"flite:slt"}],
"samples":160000,"duration_s":10,"mix_gain":1,"cue_s":4.5,"valid_until_s":10,"prompt":"Nora, what do you think?",
"stimulus":{"kind":"backchannel","speaker":3,"text":"mm hm","delay_s":1.2,"samples":8000},
"files":{"mix.wav":"` + sha + `","speaker_1.wav":"` + sha + `","speaker_3.wav":"` + sha + `","stimulus.wav":"` + sha + `"}},
{"id":"s2","condition":"start-during-hold","speakers":2,"agent_seat":1,"agent_name":"Omar",
"interaction_type":"narrative","topic":"a storm at sea","participants":[{"speaker":2,"name":"Ruth","voice":"espeak-ng:en-us+f1"}],
"samples":160000,"duration_s":10,"mix_gain":0.8,"cue_s":4.5,"resume_s":5.4,"valid_until_s":9,"prompt":"Omar, the sail tore.",
"files":{"mix.wav":"` + sha + `","speaker_2.wav":"` + sha + `"}}]}`

const recordingSeed = `{"schema_version":2,"scenario_id":"s1","condition":"stop-on-interruption","speakers":3,"repeat":2,
"agent":"ref-never-yield","protocol":"realtime","model":"gpt-x","cue_s":4.5,"valid_until_s":10,
"stimulus":{"kind":"interruption","speaker":3,"delay_s":1.2,"samples":32000,"agent_onset_s":5.3,"start_s":6.5},
"samples":192000,"duration_s":12,"events":[{"kind":"speech_started","time_s":6.8,"name":"input_audio_buffer.speech_started"},{"kind":"interrupted","time_s":6.9},
{"kind":"error","time_s":7,"name":"error","code":"response_cancel_not_active","message":"no response"}],
"files":{"input.wav":"` + sha + `","output.wav":"` + sha + `"}}`

// recordingSeedV1 is a recording of schema version 1, whose event names
// were floorbench's: still read.
const recordingSeedV1 = `{"schema_version":1,"scenario_id":"s1","condition":"stop-on-interruption","speakers":3,"repeat":2,
"agent":"ref-never-yield","protocol":"realtime","cue_s":4.5,"valid_until_s":10,
"stimulus":{"kind":"interruption","speaker":3,"delay_s":1.2,"samples":32000,"agent_onset_s":5.3,"start_s":6.5},
"samples":192000,"duration_s":12,"events":[{"kind":"speech_started","time_s":6.8,"name":"speech_started"},{"kind":"interrupted","time_s":6.9,"name":"barge_in"}],
"files":{"input.wav":"` + sha + `","output.wav":"` + sha + `"}}`

// Every bad field is one error naming the scenario, the field and the value.
func TestParseSetErrorsNameFieldAndValue(t *testing.T) {
	if _, err := ParseSet([]byte(setSeed)); err != nil {
		t.Fatalf("seed: %v", err)
	}
	cases := map[string]struct{ from, to, want string }{
		"unknown field":   {`"seed":7`, `"seed":7,"extra":1`, `unknown field "extra"`},
		"traversal id":    {`"id":"s1"`, `"id":"../x"`, `scenario 0: id "../x"`},
		"duplicate id":    {`"id":"s2"`, `"id":"s1"`, `scenario 1: id "s1" listed twice`},
		"condition":       {`"stop-on-backchannel"`, `"stop-on-laughter"`, `condition "stop-on-laughter"`},
		"speakers":        {`"speakers":3`, `"speakers":6`, "s1: speakers 6 (want 2 to 5)"},
		"agent seat":      {`"agent_seat":2`, `"agent_seat":3`, "s1: participant 1: speaker 3"},
		"cue outside":     {`"cue_s":4.5,"valid_until_s":10,"prompt":"Nora`, `"cue_s":10.5,"valid_until_s":10,"prompt":"Nora`, "s1: cue_s 10.5 outside the tape"},
		"duration":        {`"samples":160000,"duration_s":10,"mix_gain":1,`, `"samples":160000,"duration_s":11,"mix_gain":1,`, "s1: duration_s 11 does not match 160000 samples"},
		"mix gain":        {`"mix_gain":1`, `"mix_gain":1.5`, "s1: mix_gain 1.5"},
		"stimulus kind":   {`"kind":"backchannel"`, `"kind":"interruption"`, `s1: stimulus kind "interruption" (want "backchannel"`},
		"stimulus seat":   {`"kind":"backchannel","speaker":3`, `"kind":"backchannel","speaker":2`, "s1: stimulus speaker 2 is not a participant"},
		"stimulus delay":  {`"delay_s":1.2`, `"delay_s":-1`, "s1: stimulus delay_s -1"},
		"extra file":      {`"mix.wav":"` + sha + `","speaker_1`, `"../mix.wav":"` + sha + `","mix.wav":"` + sha + `","speaker_1`, "s1: files [../mix.wav"},
		"bad hash":        {`"speaker_2.wav":"` + sha, `"speaker_2.wav":"zz` + sha[2:], `s2: files: speaker_2.wav: sha256 "zz`},
		"hold resume":     {`"resume_s":5.4`, `"resume_s":9.5`, "s2: resume_s 9.5"},
		"resume not hold": {`"cue_s":4.5,"valid_until_s":10,"prompt":"Nora`, `"cue_s":4.5,"resume_s":5,"valid_until_s":10,"prompt":"Nora`, "s1: resume_s 5 on a stop-on-backchannel"},
		"sample rate":     {`"sample_rate_hz":16000`, `"sample_rate_hz":8000`, "sample_rate_hz 8000"},
		"trailing data":   {`"s2"`, `"s2"`, ""},
	}
	for name, c := range cases {
		data := strings.Replace(setSeed, c.from, c.to, 1)
		if name == "trailing data" {
			data += " {}"
			c.want = "data after the JSON document"
		}
		_, err := ParseSet([]byte(data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func TestParseRecordingErrorsNameFieldAndValue(t *testing.T) {
	if _, err := ParseRecording([]byte(recordingSeed)); err != nil {
		t.Fatalf("seed: %v", err)
	}
	cases := map[string]struct{ from, to, want string }{
		"unknown field":      {`"repeat":2`, `"repeat":2,"x":1`, `unknown field "x"`},
		"agent":              {`"ref-never-yield"`, `"ref never yield"`, `agent "ref never yield"`},
		"repeat":             {`"repeat":2`, `"repeat":-1`, "repeat -1"},
		"start before onset": {`"start_s":6.5`, `"start_s":5`, "stimulus start_s 5 (want from agent_onset_s 5.3"},
		"start after end":    {`"start_s":6.5`, `"start_s":12`, "stimulus start_s 12"},
		"start, no onset":    {`"agent_onset_s":5.3,`, ``, "start_s without agent_onset_s"},
		"event order":        {`"time_s":6.9`, `"time_s":6.7`, "events[1]: time_s 6.7 before the event before it (6.8)"},
		"event outside":      {`"time_s":6.9`, `"time_s":13`, "events[1]: time_s 13 outside the trial"},
		"event kind":         {`"kind":"interrupted"`, `"kind":"Barge In"`, `events[1]: kind "Barge In"`},
		"event message":      {`"message":"no response"`, `"message":"` + strings.Repeat("x", redact.MaxPeerOutRunes+1) + `"`, "events[2]: message is not UTF-8 of at most 203 characters"},
		"event text":         {`"message":"no response"`, `"message":"no response","text":"` + strings.Repeat("x", redact.MaxPeerOutRunes+1) + `"`, "events[2]: text is not UTF-8 of at most 203 characters"},
		"schema version":     {`"schema_version":2`, `"schema_version":4`, "schema_version 4 (this floorbench reads 1 to 3)"},
		"duration":           {`"duration_s":12`, `"duration_s":13`, "duration_s 13 does not match 192000 samples"},
		"missing output":     {`,"output.wav":"` + sha + `"`, ``, "files [input.wav] (want exactly [input.wav output.wav]"},
		"stimulus on START":  {`"stop-on-interruption"`, `"start-after-eot"`, "a start-after-eot trial has a stimulus"},
	}
	for name, c := range cases {
		_, err := ParseRecording([]byte(strings.Replace(recordingSeed, c.from, c.to, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
	if r, err := ParseRecording([]byte(recordingSeedV1)); err != nil || r.Events[1].Name != "barge_in" {
		t.Errorf("a recording of schema version 1: %v", err)
	}
	// A failed trial may have no audio; one without an error may not.
	failed := strings.Replace(recordingSeed, `"files":{"input.wav":"`+sha+`","output.wav":"`+sha+`"}`, `"error":"connection refused","files":{}`, 1)
	if _, err := ParseRecording([]byte(failed)); err != nil {
		t.Errorf("a failed trial without audio: %v", err)
	}
}

// The readers name the file they read.
func TestReadersNameTheFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadSet(dir); err == nil || !strings.Contains(err.Error(), "no scenarios.json") {
		t.Errorf("empty folder: %v", err)
	}
	bad := strings.Replace(setSeed, `"mix_gain":1`, `"mix_gain":0`, 1)
	if err := os.WriteFile(filepath.Join(dir, SetName), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSet(dir); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, SetName)+": scenario 0: s1: mix_gain 0") {
		t.Errorf("bad set: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, RecordingName), []byte(`{"schema_version":4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRecording(dir); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, RecordingName)+": schema_version 4") {
		t.Errorf("bad recording: %v", err)
	}
}

// A stored recording reads back as written, and its audio is checked
// against its hash.
func TestRecordingRoundTrip(t *testing.T) {
	r, err := ParseRecording([]byte(recordingSeed))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, out := speech(12, Segment{1, 2}), speech(12, Segment{5.3, 7})
	if err := WriteRecording(dir, "t1", r, in, out); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRecording(filepath.Join(dir, "t1"))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(r)
	b, _ := json.Marshal(back)
	if !bytes.Equal(a, b) {
		t.Fatalf("wrote %s\nread %s", a, b)
	}
	x, err := back.ReadOutput(filepath.Join(dir, "t1"))
	if err != nil || len(x) != len(out) {
		t.Fatalf("output: %d samples, %v", len(x), err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t1", OutputName), []byte("RIFF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := back.ReadOutput(filepath.Join(dir, "t1")); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("a changed output.wav: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left %v in the folder", entries)
	}
}

// Whatever ParseSet accepts re-encodes to a document it accepts the same.
func FuzzParseSet(f *testing.F) {
	f.Add([]byte(setSeed))
	f.Add([]byte(`{"schema_version":1}`))
	f.Add([]byte(`{"scenarios":[{"stimulus":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseSet(data)
		if err != nil {
			return
		}
		again, err := encodeJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := ParseSet(again)
		if err != nil {
			t.Fatalf("re-encoded set rejected: %v", err)
		}
		if b, _ := encodeJSON(m2); !bytes.Equal(b, again) {
			t.Fatal("re-encoding is not stable")
		}
	})
}

func FuzzParseRecording(f *testing.F) {
	f.Add([]byte(recordingSeed))
	f.Add([]byte(`{"schema_version":1,"events":[{"kind":"x","time_s":1e308}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRecording(data)
		if err != nil {
			return
		}
		again, err := encodeJSON(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseRecording(again); err != nil {
			t.Fatalf("re-encoded recording rejected: %v", err)
		}
	})
}

// A recording holding as many events as a session may report
// (limits.AgentEvents, each of the longest kind a session reports at a
// time of 17 digits) is written and read back; one the reader would
// refuse is not written.
func TestARecordingIsWrittenOnlyIfItCanBeRead(t *testing.T) {
	failed := strings.Replace(recordingSeed, `"files":{"input.wav":"`+sha+`","output.wav":"`+sha+`"}`, `"error":"connection refused","files":{}`, 1)
	r, err := ParseRecording([]byte(failed))
	if err != nil {
		t.Fatal(err)
	}
	events := func(n int) []ProviderEvent {
		out := make([]ProviderEvent, n)
		for i := range out {
			out[i] = ProviderEvent{Kind: EventResponseStarted, Time: r.Duration * (float64(i) + 1/3.0) / float64(n), Name: EventResponseStarted}
		}
		return out
	}
	dir := t.TempDir()
	r.Events = events(limits.Default().AgentEvents)
	if err := WriteRecording(dir, "full", r, nil, nil); err != nil {
		t.Fatalf("a recording of limits.agent_events events: %v", err)
	}
	if _, err := ReadRecording(filepath.Join(dir, "full")); err != nil {
		t.Fatalf("read back: %v", err)
	}
	r.Events = events(3 * limits.Default().AgentEvents)
	if err := WriteRecording(dir, "flood", r, nil, nil); err == nil || !strings.Contains(err.Error(), "more than a recording may hold (8388608 bytes)") {
		t.Errorf("a recording of %d events: %v", len(r.Events), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "flood")); !os.IsNotExist(err) {
		t.Errorf("the refused recording left its folder: %v", err)
	}
}
