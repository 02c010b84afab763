package floor

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// goldWith returns a one-conversation artifact (duration 10 s, tau_pre
// 0.25 s) whose lists are empty except the one body sets.
func goldWith(provenance, body string) string {
	lists := map[string]string{"eot_positive_events": "[]", "eot_negative_spans": "[]", "int_positive_events": "[]",
		"int_negative_spans": "[]", "eot_excluded": "[]", "int_excluded": "[]"}
	out := `{` + provenance + `"tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {"c1": {"duration_s": 10.0`
	for _, k := range conversationGoldKeys[1:] {
		if strings.HasPrefix(body, `"`+k+`"`) {
			out += ", " + body
			continue
		}
		out += `, "` + k + `": ` + lists[k]
	}
	return out + "}}}"
}

func TestGoldOutsideItsConversationIsRejected(t *testing.T) {
	t.Parallel()
	const tb = `"scorer_sha": "a87ffac", "dataset_revision": "3f2c1d0", `
	cases := []struct{ provenance, body, want string }{
		{"", `"eot_positive_events": [{"speaker": 1, "time_s": -1}]`,
			`conversation "c1": eot_positive_events[0] speaker 1: time_s -1 is outside [0, 10.25] (duration_s 10 + tau_pre_s 0.25)`},
		{"", `"int_positive_events": [{"speaker": 2, "time_s": 4}, {"speaker": 2, "time_s": 10.3}]`,
			`conversation "c1": int_positive_events[1] speaker 2: time_s 10.3 is outside [0, 10.25] (duration_s 10 + tau_pre_s 0.25)`},
		{"", `"eot_excluded": [{"speaker": 1, "start": -5, "end": 2}]`,
			`conversation "c1": eot_excluded[0] speaker 1: start -5 is outside [-3, 13] (3 s around [0, duration_s 10])`},
		{"", `"int_negative_spans": [{"speaker": 1, "start": 30, "end": 20}]`,
			`conversation "c1": int_negative_spans[0] speaker 1: start 30 is outside [-3, 13] (3 s around [0, duration_s 10])`},
		{"", `"eot_negative_spans": [{"speaker": 1, "start": 9, "end": 14}]`,
			`conversation "c1": eot_negative_spans[0] speaker 1: end 14 is outside [-3, 13] (3 s around [0, duration_s 10])`},
		{tb, `"eot_positive_events": [{"speaker": 3, "time_s": 1}]`,
			`conversation "c1": eot_positive_events[0] speaker 3: speaker 3 in TurnBench gold, which has speakers 1 and 2 only`},
	}
	for _, c := range cases {
		in := goldWith(c.provenance, c.body)
		if _, err := ParseGoldSet([]byte(in), limits.Default()); err == nil || err.Error() != c.want {
			t.Errorf("%s\n  error %v\n  want  %s", in, err, c.want)
		}
	}
}

// TurnBench's scorer keeps these and the reference fixtures hold them, so
// floorbench must read them to agree with it to the count.
func TestGoldThatTurnBenchKeepsIsAccepted(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`"eot_positive_events": [{"speaker": 1, "time_s": 4}, {"speaker": 1, "time_s": 4}]`,     // duplicate anchors
		`"eot_positive_events": [{"speaker": 1, "time_s": 0}, {"speaker": 2, "time_s": 10.25}]`, // both edges
		`"eot_negative_spans": [{"speaker": 1, "start": 8.5, "end": 4.2}]`,                      // crossed span
		`"eot_excluded": [{"speaker": 1, "start": -0.1875, "end": 0.375}]`,                      // slightly before 0
		`"int_negative_spans": [{"speaker": 2, "start": 8, "end": 12.1}]`,                       // past the end
		`"int_positive_events": [{"speaker": 7, "time_s": 1}]`,                                  // no provenance: N speakers
	} {
		if _, err := ParseGoldSet([]byte(goldWith("", body)), limits.Default()); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestAnnotatedSegmentsFarOutsideTheConversationAreRejected(t *testing.T) {
	t.Parallel()
	track := func(segs ...AnnotatedSegment) []SpeakerAnnotations {
		return []SpeakerAnnotations{{{{Start: 1, End: 2, Label: "Normal Turn"}}, nil, segs}}
	}
	cases := []struct {
		seg  AnnotatedSegment
		want string
	}{
		{AnnotatedSegment{Start: -5, End: 2}, "speaker_1 annotator c segment 0: start -5 is outside [-3, 23] (3 s around [0, duration_s 20])"},
		{AnnotatedSegment{Start: 19, End: 23.5}, "speaker_1 annotator c segment 0: end 23.5 is outside [-3, 23] (3 s around [0, duration_s 20])"},
		{AnnotatedSegment{Start: 15, End: 11}, "speaker_1 annotator c segment 0: end 11 is more than 3 s before start 15"},
	}
	for _, c := range cases {
		if err := CheckAnnotatedSegments(20, track(c.seg)); err == nil || err.Error() != c.want {
			t.Errorf("%+v\n  error %v\n  want  %s", c.seg, err, c.want)
		}
	}
	// The largest deviations of the reference annotations.
	for _, s := range []AnnotatedSegment{{Start: -0.1875, End: 0.375}, {Start: 18.5, End: 22.0885}, {Start: 15.709, End: 14.554}} {
		if err := CheckAnnotatedSegments(20, track(s)); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// Gold that states its speakers is floorbench's own: a speaker beyond the
// count, and a span that ends at or before its start, cannot be true and
// are refused; the count itself is 1..MaxSpeakers. Written and read back,
// it keeps its count.
func TestGoldStatingItsSpeakersIsHeldToThem(t *testing.T) {
	t.Parallel()
	stated := func(speakers, body string) string {
		return strings.Replace(goldWith("", body), `"duration_s": 10.0`, `"duration_s": 10.0, "speakers": `+speakers, 1)
	}
	for _, c := range []struct{ in, want string }{
		{stated("2", `"eot_negative_spans": [{"speaker": 1, "start": 9.0, "end": 4.0}]`),
			`conversation "c1": eot_negative_spans[0] speaker 1: end 4 is not after start 9 (a span of floorbench's gold, which states its speakers, has a length)`},
		{stated("2", `"int_excluded": [{"speaker": 2, "start": 3.5, "end": 3.5}]`),
			`conversation "c1": int_excluded[0] speaker 2: end 3.5 is not after start 3.5 (a span of floorbench's gold, which states its speakers, has a length)`},
		{stated("2", `"int_positive_events": [{"speaker": 3, "time_s": 1}]`),
			`conversation "c1": int_positive_events[0] speaker 3: speaker 3, but the gold says 2 speakers`},
		{stated("0", ""), `conversation "c1": speakers: want 1 to 16, got 0`},
		{stated("17", ""), `conversation "c1": speakers: want 1 to 16, got 17`},
		{stated("1.5", ""), `conversation "c1": speakers: line 1 col 96: expected an integer, found 1.5`},
	} {
		if _, err := ParseGoldSet([]byte(c.in), limits.Default()); err == nil || err.Error() != c.want {
			t.Errorf("%s\n  error %v\n  want  %s", c.in, err, c.want)
		}
	}
	g, err := ParseGoldSet([]byte(stated("3", `"eot_negative_spans": [{"speaker": 3, "start": 4.0, "end": 9.0}]`)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteGoldSet(&out, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"duration_s": 10.0, "speakers": 3, `) {
		t.Errorf("written: %s", out.String())
	}
	if n, source := g.Conversations[0].Speakers(false); n != 3 || source != "the gold says 3 speakers" {
		t.Errorf("Speakers: %d, %q", n, source)
	}
}

// The limits passed bound a gold set's conversations and their lengths:
// one over is an error naming the limit, one at it is read.
func TestGoldSetWithinTheLimitsPassed(t *testing.T) {
	t.Parallel()
	gold := []byte(goldWith("", ""))
	l := limits.Default()
	l.Conversations, l.DurationS = 1, 10
	if _, err := ParseGoldSet(gold, l); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	l.DurationS = 9.5
	if _, err := ParseGoldSet(gold, l); err == nil || !strings.Contains(err.Error(), "duration_s: 10 is over the limit of 9.5 (raise limits.conversation_duration_s") {
		t.Errorf("a conversation over the duration limit: %v", err)
	}
	l = limits.Default()
	l.Conversations = 0
	if _, err := ParseGoldSet(gold, l); err == nil || !strings.Contains(err.Error(), "conversations: 1 is over the limit of 0") {
		t.Errorf("more conversations than the limit: %v", err)
	}
}
