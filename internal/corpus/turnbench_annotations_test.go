package corpus

import (
	"os"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

const annotationsFixture = `{"conversations": {"7": {"duration_s": 20.0, "annotations": {
 "speaker_1": {"a": [[0.5, 3.0, "Normal Turn", "hi"], [3.8, 6.0, "Normal Turn"]], "b": [[0.55, 3.1, "Normal Turn"], [3.9, 6.05, "Normal Turn"]], "c": []},
 "speaker_2": {"a": [[6.5, 10.0, "Normal Turn"]], "b": [[6.45, 10.1, "Normal Turn"]], "c": [[6.6, 9.9, "Something New"]]}}}}}`

func TestReadTurnBenchAnnotations(t *testing.T) {
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

func TestTurnBenchAnnotationErrors(t *testing.T) {
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

func FuzzParseTurnBenchAnnotations(f *testing.F) {
	f.Add([]byte(annotationsFixture))
	f.Fuzz(func(t *testing.T, data []byte) {
		convs, err := ParseTurnBenchAnnotations(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error must be one line: %q", err)
			}
			return
		}
		TurnBenchGold(convs) // any parsed input must derive without panicking
	})
}

// Ingest refuses a row whose labels would give gold like [-5, 2] before it
// writes anything for it.
func TestIngestRejectsSegmentsFarOutsideTheConversation(t *testing.T) {
	dir := t.TempDir()
	row := &TurnBenchRow{ID: "c1", Split: "dev", samples: SampleRate,
		Speakers: []floor.SpeakerAnnotations{{{{Start: -5, End: 0.5, Label: "Normal Turn"}}}, {}}}
	_, err := WriteTurnBenchConversation(dir, row)
	want := `conversation "c1": speaker_1 annotator a segment 0: start -5 is outside [-3, 4] (3 s around [0, duration_s 1])`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}
