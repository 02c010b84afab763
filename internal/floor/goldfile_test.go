package floor

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// The artifact TurnBench's `gold export` prints for a one-conversation
// dataset: floorbench must read it, keep its provenance and write it back
// byte for byte.
const turnbenchExport = `{"scorer_sha": "a87ffac-dirty", "dataset_revision": "3f2c1d0", "tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {"12": {"duration_s": 312.5, "eot_positive_events": [{"speaker": 1, "time_s": 6.025}, {"speaker": 2, "time_s": 15.0}], "eot_negative_spans": [{"speaker": 1, "start": 3.0, "end": 3.85}], "int_positive_events": [{"speaker": 2, "time_s": 12.05}], "int_negative_spans": [{"speaker": 1, "start": 11.025, "end": 11.45}], "eot_excluded": [], "int_excluded": [{"speaker": 2, "start": 1e-05, "end": 0.5}]}}}
`

// An artifact holding times written as integers, which Python reads as
// ints and writes back as integers.
const integerTimesExport = `{"tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {"c1": {"duration_s": 100, "eot_positive_events": [{"speaker": 1, "time_s": 60}, {"speaker": 2, "time_s": 60.0}], "eot_negative_spans": [{"speaker": 1, "start": 20, "end": 25.0}], "int_positive_events": [{"speaker": 2, "time_s": 70}], "int_negative_spans": [{"speaker": 1, "start": 75.0, "end": 76}], "eot_excluded": [{"speaker": 1, "start": 0, "end": 1}], "int_excluded": []}}}
`

func TestGoldArtifactRoundTripsByteForByte(t *testing.T) {
	t.Parallel()
	g, err := ParseGoldSet([]byte(turnbenchExport), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if g.ScorerSHA != "a87ffac-dirty" || g.DatasetRevision != "3f2c1d0" || len(g.Conversations) != 1 || g.Conversations[0].ID != "12" {
		t.Fatalf("parsed %+v", g)
	}
	for _, artifact := range []string{turnbenchExport, integerTimesExport} {
		g, err := ParseGoldSet([]byte(artifact), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteGoldSet(&buf, g); err != nil {
			t.Fatal(err)
		}
		if buf.String() != artifact {
			t.Errorf("written\n%s\nwant\n%s", buf.String(), artifact)
		}
	}
}

func TestParseGoldSetErrors(t *testing.T) {
	t.Parallel()
	conv := func(body string) string {
		return `{"tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {"c1": {"duration_s": 10.0, ` + body + `}}}`
	}
	full := `"eot_positive_events": [], "eot_negative_spans": [], "int_positive_events": [], "int_negative_spans": [], "eot_excluded": []`
	cases := map[string]string{
		conv(full): `conversation "c1": missing key "int_excluded"`,
		conv(full + `, "int_excluded": [], "x": 1`):                            `conversation "c1": unknown key "x"`,
		conv(`"eot_positive_events": [{"speaker": 0, "time_s": 1}]`):           `conversation "c1": eot_positive_events[0].speaker: speaker must be >= 1, got 0`,
		conv(`"eot_negative_spans": [{"speaker": 1, "start": NaN, "end": 1}]`): `conversation "c1": eot_negative_spans[0].start: time must be finite, got NaN`,
		`{"tau_pre_s": -1, "tau_max_s": 3.0, "conversations": {}}`:             "tau_pre_s: must be finite and >= 0, got -1",
	}
	for in, want := range cases {
		if _, err := ParseGoldSet([]byte(in), limits.Default()); err == nil || err.Error() != want {
			t.Errorf("%s\n  error %v\n  want  %s", in, err, want)
		}
	}
}

func FuzzParseGoldSet(f *testing.F) {
	f.Add([]byte(turnbenchExport))
	f.Add([]byte(`{"tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGoldSet(data, limits.Default())
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error must be one line: %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteGoldSet(&buf, g); err != nil {
			t.Fatal(err)
		}
		again, err := ParseGoldSet(buf.Bytes(), limits.Default())
		if err != nil || !reflect.DeepEqual(normalise(again), normalise(g)) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, g, again)
		}
	})
}

// normalise makes empty and nil lists equal for comparison.
func normalise(g *GoldSet) *GoldSet {
	c := *g
	c.Conversations = append([]ConversationGold(nil), g.Conversations...)
	for i := range c.Conversations {
		for _, t := range []*TaskGold{&c.Conversations[i].EOT, &c.Conversations[i].INT} {
			if len(t.Positives) == 0 {
				t.Positives = nil
			}
			if len(t.Negatives) == 0 {
				t.Negatives = nil
			}
			if len(t.Excluded) == 0 {
				t.Excluded = nil
			}
		}
	}
	return &c
}
