package corpus

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

const annotationsFixture = `{"conversations": {"7": {"duration_s": 20.0, "annotations": {
 "speaker_1": {"a": [[0.5, 3.0, "Normal Turn", "hi"], [3.8, 6.0, "Normal Turn"]], "b": [[0.55, 3.1, "Normal Turn"], [3.9, 6.05, "Normal Turn"]], "c": []},
 "speaker_2": {"a": [[6.5, 10.0, "Normal Turn"]], "b": [[6.45, 10.1, "Normal Turn"]], "c": [[6.6, 9.9, "Something New"]]}}}}}`

func TestReadTurnBenchAnnotations(t *testing.T) {
	t.Parallel()
	convs, err := ParseTurnBenchAnnotations([]byte(annotationsFixture))
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || convs[0].ID != "7" || len(convs[0].Speakers) != 2 || convs[0].Speakers[0][0][0].Text != "hi" {
		t.Fatalf("parsed %+v", convs)
	}
	g := TurnBenchGold(convs)
	// Speaker 1's consensus segments end at 3.05 and 6.025; the first is a
	// pause (they resume at 3.85), the second passes the floor.
	want := []floor.Anchor{{Speaker: 1, Time: 6.025}, {Speaker: 2, Time: 10.05}}
	if got := g.Conversations[0].EOT.Positives; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("EOT positives %+v, want %+v", got, want)
	}
}

// A stored corpus's annotations read back as the kinds of number they
// were read as: 60 as an int, 60.0 (and a time from parquet, a double) as
// a float, so that the gold derived from them prints as TurnBench's does.
func TestEncodeTurnBenchAnnotationsKeepsIntegers(t *testing.T) {
	t.Parallel()
	in := `{"conversations": {"7": {"duration_s": 100, "annotations": {"speaker_1": {"a": [[60, 60.0, "Normal Turn"]], "b": [], "c": []}}}}}`
	convs, err := ParseTurnBenchAnnotations([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	convs = append(convs, TurnBenchConversation{ID: "8", Duration: 100, Speakers: []floor.SpeakerAnnotations{{{{Start: 61, End: 62, Label: "Normal Turn"}}}}})
	encoded, err := EncodeTurnBenchAnnotations(convs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\"duration_s\": 100\n", "60,\n", "60.0,\n", "61.0,\n", "62.0,\n"} {
		if !strings.Contains(string(encoded), want) {
			t.Errorf("encoding lacks %q:\n%s", want, encoded)
		}
	}
	again, err := ParseTurnBenchAnnotations(encoded)
	if err != nil {
		t.Fatal(err)
	}
	if s := again[0].Speakers[0][0][0]; !s.StartInteger || s.EndInteger {
		t.Errorf("read back %+v, want an integer start and a float end", s)
	}
	if s := again[1].Speakers[0][0][0]; s.StartInteger || s.EndInteger {
		t.Errorf("read back %+v, want float times", s)
	}
}

func TestTurnBenchAnnotationErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"conversations": {"7": {"duration_s": 1, "annotations": {"speaker_1": {"a": [], "b": []}}}}}`:                            `conversation "7": speaker_1: annotator "c" is missing`,
		`{"conversations": {"7": {"duration_s": 1, "annotations": {"speaker_1": {"a": [[1, NaN, "Filler"]], "b": [], "c": []}}}}}`: `conversation "7": speaker_1 annotator a segment 0: item 1: time must be finite, got NaN`,
		`{"conversations": {"7": {"duration_s": 1, "annotations": {"speaker_1": {"a": [[1, 2]], "b": [], "c": []}}}}}`:             `conversation "7": speaker_1 annotator a segment 0: want [start, end, label] or [start, end, label, text], found 2 items`,
		`{"conversations": {"7": {"annotations": {"speaker_1": {"a": [], "b": [], "c": []}}}}}`:                                    `conversation "7": missing key "duration_s"`,
		`{"conversations": {"7": {"duration_s": 1, "annotations": {"speaker_01": {}}}}}`:                                           `conversation "7": annotations: unknown key "speaker_01" (want speaker_1, speaker_2, ...)`,
	}
	for in, want := range cases {
		if _, err := ParseTurnBenchAnnotations([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("%s\n  error %v\n  want  %s", in, err, want)
		}
	}
}

// FuzzParseTurnBenchAnnotations: an input is refused with one error line,
// or what it gives keeps the bounds the parser promises (every boundary
// within BoundarySlack of [0, duration_s], no end more than that before
// its start), survives EncodeTurnBenchAnnotations and parsing again
// unchanged, and derives gold whose anchors and spans stay within the same
// bounds.
func FuzzParseTurnBenchAnnotations(f *testing.F) {
	f.Add([]byte(annotationsFixture))
	// Segments at the edges of what is accepted: ending before 0, ending
	// past duration_s, ending before they start.
	f.Add([]byte(`{"conversations": {"7": {"duration_s": 20.0, "annotations": {"speaker_1": {"a": [[-2.5, -1.0, "Normal Turn"]], "b": [[-2.5, -1.0, "Normal Turn"]], "c": []}, "speaker_2": {"a": [[0.5, 2, "Normal Turn"]], "b": [[0.5, 2, "Interruption"]], "c": []}}}}}`))
	// Refused: a start 5 s before 0, a time that is not a number.
	f.Add([]byte(`{"conversations": {"7": {"duration_s": 1, "annotations": {"speaker_1": {"a": [[-5, 0.5, "Normal Turn"]], "b": [], "c": []}}}}}`))
	f.Add([]byte(`{"conversations": {"7": {"duration_s": 1, "annotations": {"speaker_1": {"a": [[1, NaN, "Filler"]], "b": [], "c": []}}}}}`))
	f.Add([]byte(`{"conversations": {"7": {"duration_s": 20.0, "annotations": {"speaker_1": {"a": [[19.5, 22.9, "Normal Turn"]], "b": [[19.5, 22.9, "Normal Turn"]], "c": []}, "speaker_2": {"a": [[5, 2.5, "Normal Turn", "x"]], "b": [[5, 2.5, "Normal Turn"]], "c": []}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		convs, err := ParseTurnBenchAnnotations(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error must be one line: %q", err)
			}
			return
		}
		for _, c := range convs {
			if !(c.Duration >= 0) || len(c.Speakers) == 0 {
				t.Fatalf("conversation %q: duration %v, %d speakers", c.ID, c.Duration, len(c.Speakers))
			}
			lo, hi := -floor.BoundarySlack, c.Duration+floor.BoundarySlack
			for k, tracks := range c.Speakers {
				for a, track := range tracks {
					for i, s := range track {
						if s.Start < lo || s.Start > hi || s.End < lo || s.End > hi || s.Start-s.End > floor.BoundarySlack {
							t.Fatalf("conversation %q speaker %d annotator %d segment %d: [%v, %v] accepted with duration %v", c.ID, k+1, a, i, s.Start, s.End, c.Duration)
						}
					}
				}
			}
		}
		encoded, err := EncodeTurnBenchAnnotations(convs)
		if err != nil {
			t.Fatalf("encode what parsed: %v", err)
		}
		again, err := ParseTurnBenchAnnotations(encoded)
		if err != nil {
			t.Fatalf("the encoding does not parse: %v\n%s", err, encoded)
		}
		if byID := func(cs []TurnBenchConversation) []TurnBenchConversation {
			return slices.SortedFunc(slices.Values(cs), func(x, y TurnBenchConversation) int { return strings.Compare(x.ID, y.ID) })
		}; !reflect.DeepEqual(byID(again), byID(convs)) {
			t.Fatalf("round trip changed the annotations:\n%+v\n%+v", convs, again)
		}
		for _, c := range TurnBenchGold(convs).Conversations {
			checkGoldWithinSlack(t, &c)
		}
	})
}

// checkGoldWithinSlack fails when an anchor or span boundary of c lies
// more than BoundarySlack outside [0, duration].
func checkGoldWithinSlack(t *testing.T, c *floor.ConversationGold) {
	t.Helper()
	lo, hi := -floor.BoundarySlack, c.Duration+floor.BoundarySlack
	for _, task := range []floor.TaskGold{c.EOT, c.INT} {
		for _, a := range task.Positives {
			if a.Time < lo || a.Time > hi {
				t.Fatalf("conversation %q: anchor %+v outside [%v, %v]", c.ID, a, lo, hi)
			}
		}
		for _, s := range append(slices.Clone(task.Negatives), task.Excluded...) {
			if s.Start < lo || s.Start > hi || s.End < lo || s.End > hi {
				t.Fatalf("conversation %q: span %+v outside [%v, %v]", c.ID, s, lo, hi)
			}
		}
	}
}
