package score

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/jsonio"
	"github.com/floorbench/floorbench/internal/limits"
)

func TestParseSubmissionErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"schema_version": 2, "predictions": []}`:             "schema_version: unsupported version 2 (want 1)",
		`{"schema_version": 1, "predictions": [], "extra": 1}`: `unknown key "extra"`,
		`{"schema_version": 1}`:                                `missing key "predictions"`,
		`{"schema_version": 1, "predictions": [{"conversation_id": "a", "speaker_2": {"eot": [], "interruption": []}}]}`:    `conversation "a": speaker_1 is missing (speakers must be numbered 1..1)`,
		`{"schema_version": 1, "predictions": [{"conversation_id": "a", "speaker_1": {"eot": []}}]}`:                        `conversation "a" speaker_1: want both keys "eot" and "interruption"`,
		`{"schema_version": 1, "predictions": [{"conversation_id": "a", "speaker_1": {"eot": ["1"], "interruption": []}}]}`: `conversation "a" speaker_1 eot[0]: line 1 col 86: expected number, found string`,
		`{"schema_version": 1, "predictions": [{"conversation_id": 3}]}`:                                                    `predictions[0].conversation_id: line 1 col 59: expected string, found number`,
	}
	for in, want := range cases {
		_, err := ParseSubmission([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("%s\n  error %v\n  want  %s", in, err, want)
		}
	}
}

func TestCheckSubmissionNamesConversationSpeakerTaskIndex(t *testing.T) {
	t.Parallel()
	gold := &floor.GoldSet{Conversations: []floor.ConversationGold{{ID: "a", Duration: 10}, {ID: "b", Duration: 10, SpeakerCount: 1}}}
	sub := func(eot ...float64) *Submission {
		return &Submission{Conversations: []ConversationPredictions{
			{ID: "a", Speakers: []SpeakerPredictions{{EOT: []float64{1}}, {EOT: eot}}},
			{ID: "b", Speakers: []SpeakerPredictions{{}}},
		}}
	}
	nan := 0.0
	nan = nan / nan
	cases := []struct {
		s    *Submission
		want string
	}{
		{sub(1, 1), `conversation "a" speaker_2 eot[1]: time 1 is not after the previous time 1 (times must be strictly increasing)`},
		{sub(2, 1), `conversation "a" speaker_2 eot[1]: time 1 is not after the previous time 2 (times must be strictly increasing)`},
		{sub(1, nan), `conversation "a" speaker_2 eot[1]: time NaN is not finite`},
		{sub(-0.5), `conversation "a" speaker_2 eot[0]: time -0.5 is outside [0, 10]`},
		{sub(10.5), `conversation "a" speaker_2 eot[0]: time 10.5 is outside [0, 10]`},
		{&Submission{Conversations: sub().Conversations[:1]}, `conversation "b": missing (every gold conversation must appear once)`},
		{&Submission{Conversations: append(sub().Conversations, sub().Conversations[1])}, `conversation "b": appears more than once`},
		{&Submission{Conversations: append(sub().Conversations, ConversationPredictions{ID: "zz"})}, `conversation "zz": not in the gold`},
	}
	for _, c := range cases {
		if err := CheckSubmission(c.s, gold); err == nil || err.Error() != c.want {
			t.Errorf("error %v\n want %s", err, c.want)
		}
	}
	if err := CheckSubmission(sub(0, 10), gold); err != nil {
		t.Errorf("times at 0 and at the duration are valid: %v", err)
	}
}

func TestParseProbsErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"schema_version": 1, "task": "eot", "frame_rate_hz": 0, "probs": []}`:                                                                                                          "frame_rate_hz: must be finite and > 0, got 0",
		`{"schema_version": 1, "task": "x", "frame_rate_hz": 50, "probs": []}`:                                                                                                           `task: "x" is not eot or int`,
		`{"schema_version": 1, "task": "eot", "frame_rate_hz": 50, "probs": [{"conversation_id": "a", "speaker_1": {"prob": [0.5, 1.5]}}]}`:                                              `probs[0] (conversation "a") speaker_1.prob[1]: probability must be finite and in [0, 1], got 1.5`,
		`{"schema_version": 1, "task": "eot", "frame_rate_hz": 50, "probs": [{"conversation_id": "a", "speaker_1": {"prob": [NaN]}}]}`:                                                   `probs[0] (conversation "a") speaker_1.prob[0]: probability must be finite and in [0, 1], got NaN`,
		`{"schema_version": 1, "task": "eot", "frame_rate_hz": 50, "probs": [{"conversation_id": "a", "speaker_1": {"prob": []}}, {"conversation_id": "a", "speaker_1": {"prob": []}}]}`: `probs[1]: conversation "a" appears twice`,
	}
	path := filepath.Join(t.TempDir(), "probs.json")
	for in, want := range cases {
		_, err := ParseProbs([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("%s\n  error %v\n  want  %s", in, err, want)
		}
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadProbs(path, limits.Default()); err == nil || err.Error() != path+": "+want {
			t.Errorf("ReadProbs of %s\n  error %v\n  want  %s: %s", in, err, path, want)
		}
	}
}

func FuzzParseSubmission(f *testing.F) {
	f.Add([]byte(`{"schema_version": 1, "predictions": [{"conversation_id": "7", "speaker_1": {"eot": [3.5, 6.4], "interruption": []}, "speaker_2": {"eot": [10.3], "interruption": [12.3]}}]}`))
	f.Add([]byte(`{"schema_version": 1, "predictions": [{"speaker_1": {"eot": [NaN], "interruption": [1e999]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSubmission(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error must be one line: %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteSubmission(&buf, s); err != nil {
			t.Fatal(err)
		}
		again, err := ParseSubmission(buf.Bytes())
		if err != nil {
			t.Fatalf("written submission does not read back: %v\n%s", err, buf.Bytes())
		}
		// Written again, it is the same bytes (NaN compares unequal, so
		// the written form is what is compared).
		var second bytes.Buffer
		if err := WriteSubmission(&second, again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(second.Bytes(), buf.Bytes()) {
			t.Fatalf("round trip changed the submission:\n%s\n%s", buf.Bytes(), second.Bytes())
		}
	})
}

func FuzzParseProbs(f *testing.F) {
	f.Add([]byte(`{"schema_version": 1, "task": "int", "frame_rate_hz": 12.5, "probs": [{"conversation_id": "a", "speaker_1": {"prob": [0, 0.25, 1]}, "speaker_2": {"prob": [1, 0, 0]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProbs(data)
		// ReadProbs reads a file as a stream: it must read what the bytes hold.
		streamed, serr := parseProbs(jsonio.NewStreamDecoder(iotest.OneByteReader(bytes.NewReader(data))))
		if fmt.Sprint(err) != fmt.Sprint(serr) || !reflect.DeepEqual(streamed, p) {
			t.Fatalf("streamed: %v\n%+v\nfrom bytes: %v\n%+v", serr, streamed, err, p)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error must be one line: %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteProbs(&buf, p); err != nil {
			t.Fatal(err)
		}
		again, err := ParseProbs(buf.Bytes())
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, p, again)
		}
	})
}

// TurnBench's gold is dyadic: a submission or probability file for it must
// name exactly speakers 1 and 2, even where the gold of a conversation has
// events of speaker 1 only.
func TestTurnBenchGoldWantsExactlyTwoSpeakers(t *testing.T) {
	t.Parallel()
	conv := floor.ConversationGold{ID: "a", Duration: 1, EOT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 1, Time: 0.5}}}}
	turnbench := &floor.GoldSet{HasProvenance: true, Conversations: []floor.ConversationGold{conv}}
	derived := &floor.GoldSet{Conversations: []floor.ConversationGold{conv}}
	sub := func(n int) *Submission {
		return &Submission{Conversations: []ConversationPredictions{{ID: "a", Speakers: make([]SpeakerPredictions, n)}}}
	}
	probs := func(n int) *ProbsFile {
		p := &ProbsFile{Task: floor.TaskEOT, FrameRate: 10, Conversations: []ConversationProbs{{ID: "a"}}}
		for range n {
			p.Conversations[0].Speakers = append(p.Conversations[0].Speakers, make([]float64, 10))
		}
		return p
	}
	want := map[int]string{
		1: `conversation "a": speaker_2 is missing (TurnBench gold has speakers 1 and 2)`,
		2: "",
		3: `conversation "a": speaker_3 is not in the gold (TurnBench gold has speakers 1 and 2)`,
	}
	check := func(gold *floor.GoldSet, want map[int]string) {
		t.Helper()
		for n, w := range want {
			for name, err := range map[string]error{"submission": CheckSubmission(sub(n), gold), "probs": CheckProbs(probs(n), gold)} {
				if got := fmt.Sprint(err); (w == "" && err != nil) || (w != "" && got != w) {
					t.Errorf("%s with %d speakers: error %v, want %q", name, n, err, w)
				}
			}
		}
	}
	check(turnbench, want)
	// Gold that states no count is in TurnBench's format: two speakers,
	// the source named; gold that states one is held to it.
	check(derived, map[int]string{
		0: `conversation "a": speaker_1 is missing (the gold states no count: TurnBench's two)`,
		1: `conversation "a": speaker_2 is missing (the gold states no count: TurnBench's two)`,
		2: "",
		3: `conversation "a": speaker_3 is not in the gold (the gold states no count: TurnBench's two)`,
	})
	derived.Conversations[0].SpeakerCount = 3
	check(derived, map[int]string{
		2: `conversation "a": speaker_3 is missing (the gold says 3 speakers)`,
		3: "",
		4: `conversation "a": speaker_4 is not in the gold (the gold says 3 speakers)`,
	})
}

func FuzzParseSystemFile(f *testing.F) {
	f.Add([]byte(`{"schema_version": 1, "predictions": [{"conversation_id": "7", "speaker_1": {"eot": [3.5], "interruption": []}, "speaker_2": {"eot": [], "interruption": [1]}}]}`))
	f.Add([]byte(`{"schema_version": 1, "task": "eot", "frame_rate_hz": 12.5, "probs": [{"conversation_id": "a", "speaker_1": {"prob": [0, 1]}}]}`))
	f.Add([]byte(`{"tau_pre_s": 0.25, "conversations": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseSystemFile(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error must be one line: %q", err)
			}
			return
		}
		// A file read as one kind is exactly what that kind's parser reads.
		switch {
		case got.Submission != nil && got.Probs == nil:
			want, err := ParseSubmission(data)
			if err != nil || fmt.Sprint(want) != fmt.Sprint(got.Submission) { // NaN compares unequal
				t.Fatalf("read as a submission, but ParseSubmission gives %v, %v", want, err)
			}
		case got.Probs != nil && got.Submission == nil:
			want, err := ParseProbs(data)
			if err != nil || !reflect.DeepEqual(want, got.Probs) {
				t.Fatalf("read as a probability file, but ParseProbs gives %v, %v", want, err)
			}
		default:
			t.Fatalf("want exactly one kind, got %+v", got)
		}
	})
}

// WriteProbs writes each value as strconv.FormatFloat(v, 'g', -1, 64)
// does, runs of one value included (their text is reused), -0 apart
// from 0, across speakers and conversations; and ParseProbs reads back
// the same values.
func TestWriteProbsWritesEachValueAsFormatFloat(t *testing.T) {
	t.Parallel()
	zero := 0.0
	negZero := -zero
	tracks := [][]float64{{0, 0, 0, 1, 1, 0.25, 0.25, 0.1 + 0.2, negZero, negZero, 0}, {0}, {1e-7, 1e-7, 0.5}}
	p := &ProbsFile{Task: floor.TaskEOT, FrameRate: 50, Conversations: []ConversationProbs{
		{ID: "a", Speakers: tracks[:2]}, {ID: "b", Speakers: tracks[2:]}}}
	var buf bytes.Buffer
	if err := WriteProbs(&buf, p); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString(`{"schema_version": 1, "task": "eot", "frame_rate_hz": 50.0, "probs": [`)
	for i, c := range p.Conversations {
		if i > 0 {
			want.WriteString(", ")
		}
		fmt.Fprintf(&want, `{"conversation_id": %q`, c.ID)
		for k, track := range c.Speakers {
			fmt.Fprintf(&want, `, "speaker_%d": {"prob": [`, k+1)
			for j, v := range track {
				if j > 0 {
					want.WriteString(", ")
				}
				want.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
			want.WriteString("]}")
		}
		want.WriteString("}")
	}
	want.WriteString("]}\n")
	if buf.String() != want.String() {
		t.Fatalf("wrote\n%s\nwant\n%s", buf.String(), want.String())
	}
	back, err := ParseProbs(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("read back %+v, want %+v", back, p)
	}
}
