package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The fixtures under testdata/reference hold inputs and the outputs that
// TurnBench's public scorer logic gives for them (see the README there).
// floorbench must reproduce them: the gold artifact byte for byte, the
// counts exactly and every rate, latency and threshold to the last bit.
var referenceDir = filepath.Join("..", "..", "testdata", "reference")

func referencePath(name string) string { return filepath.Join(referenceDir, name) }

// runFloorbench runs the command line in-process and returns its stdout.
func runFloorbench(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := newRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("floorbench %v: %v\n%s", args, err, errOut.String())
	}
	return out.Bytes()
}

func TestReferenceGold(t *testing.T) {
	got := runFloorbench(t, "gold", "turnbench", "--annotations", referencePath("annotations.json"), "-o", "json")
	want, err := os.ReadFile(referencePath("gold.expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("gold artifact differs from the reference at byte %d:\n got  …%s\n want …%s", i, excerpt(got, i), excerpt(want, i))
	}
}

// Python's json reads a duration written as an integer as an int and
// json.dumps writes it back as one: given the reference annotations with
// "duration_s": 65.0 written as 65, the reference's gold differs from
// gold.expected.json only there ("duration_s": 65); a fraction or an
// exponent keeps it a float (6.5e1 prints as 65.0).
func TestReferenceGoldIntegerDuration(t *testing.T) {
	annotations, err := os.ReadFile(referencePath("annotations.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(referencePath("gold.expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ literal, printed string }{{"65", "65"}, {"6.5e1", "65.0"}, {"65.00", "65.0"}} {
		in := bytes.Replace(annotations, []byte(`"duration_s": 65.0`), []byte(`"duration_s": `+c.literal), 1)
		path := filepath.Join(t.TempDir(), "annotations.json")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		got := runFloorbench(t, "gold", "turnbench", "--annotations", path, "-o", "json")
		expected := bytes.Replace(want, []byte(`"duration_s": 65.0`), []byte(`"duration_s": `+c.printed), 1)
		if !bytes.Equal(got, expected) {
			i := 0
			for i < len(got) && i < len(expected) && got[i] == expected[i] {
				i++
			}
			t.Fatalf("duration_s %s: gold differs at byte %d:\n got  …%s\n want …%s", c.literal, i, excerpt(got, i), excerpt(expected, i))
		}
	}
}

// Python's json reads a time written as an integer as an int, and
// TurnBench's consensus keeps it one where Python does: the median of an
// odd count is the middle value as it was given (an int, or of equal
// values the one a stable sort puts in the middle), the median of two is a
// float (true division, even of two equal ints), round(x, 4) returns an int
// unchanged, min and max return the first of equal values. The expected
// artifact is worked out by hand from those rules.
func TestGoldIntegerTimes(t *testing.T) {
	three := func(segs ...string) string {
		track := "[" + strings.Join(segs, ", ") + "]"
		return `{"a": ` + track + `, "b": ` + track + `, "c": ` + track + `}`
	}
	annotations := `{"conversations": {"c1": {"duration_s": 100, "annotations": {
  "speaker_1": {
    "a": [[10, 20.0, "Normal Turn"], [25, 60, "Normal Turn"], [50, 60.0, "Normal Turn"], [75, 76, "Continuer Backchannel"]],
    "b": [[10, 20.0, "Normal Turn"], [25.0, 60, "Normal Turn"], [50, 60.0, "Normal Turn"], [75, 76, "Continuer Backchannel"]],
    "c": [[10, 20.0, "Normal Turn"], [25, 60, "Normal Turn"], [50, 60.0, "Normal Turn"], [75, 76, "Continuer Backchannel"]]},
  "speaker_2": {
    "a": [[70, 80, "Floor-taking Competitive Interruption"], [85, 90, "Laughter"]],
    "b": [[70, 80.1, "Floor-taking Competitive Interruption"], [88, 90.0, "Laughter"]],
    "c": []}}},
  "c2": {"duration_s": 50.0, "annotations": {
  "speaker_1": ` + three(`[1, 30.0, "Normal Turn"]`, `[32, 35, "Normal Turn"]`, `[36.0, 36.5, "Continuer Backchannel"]`, `[38, 40, "Normal Turn"]`) + `,
  "speaker_2": ` + three(`[41, 45, "Normal Turn"]`) + `}}}}`
	want := `{"tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {` +
		// c1: speaker 1's second turn ends at 60 for all three: an int; the
		// third ends at 60.0, the same anchor by value, which is kept once,
		// as first found. The second turn's start, 25, 25.0 and 25, sorts
		// stably to the float in the middle, which ends the pause after the
		// first turn (20.0: floats stay floats). Speaker 2's interruption:
		// a and b agree, the median of 70 and 70 is 70.0 and of 80 and
		// 80.1 is 80.05. The backchannel is ints throughout. The laughter
		// has no majority: 85-90 and 88-90.0 merge into an excluded 85 to
		// 90 (max keeps the first of equal ends).
		`"c1": {"duration_s": 100, ` +
		`"eot_positive_events": [{"speaker": 1, "time_s": 60}, {"speaker": 2, "time_s": 80.05}], ` +
		`"eot_negative_spans": [{"speaker": 1, "start": 20.0, "end": 25.0}], ` +
		`"int_positive_events": [{"speaker": 2, "time_s": 70.0}], ` +
		`"int_negative_spans": [{"speaker": 1, "start": 75, "end": 76}], ` +
		`"eot_excluded": [], "int_excluded": [{"speaker": 2, "start": 85, "end": 90}]}, ` +
		// c2: the first pause runs from 30.0 to speaker 1's next start, the
		// int 32; the second, 35 to 38, is cut by their own backchannel at
		// 36.0, a float.
		`"c2": {"duration_s": 50.0, ` +
		`"eot_positive_events": [{"speaker": 1, "time_s": 40}, {"speaker": 2, "time_s": 45}], ` +
		`"eot_negative_spans": [{"speaker": 1, "start": 30.0, "end": 32}, {"speaker": 1, "start": 35, "end": 36.0}], ` +
		`"int_positive_events": [], "int_negative_spans": [{"speaker": 1, "start": 36.0, "end": 36.5}], "eot_excluded": [], "int_excluded": []}}}` + "\n"
	path := filepath.Join(t.TempDir(), "annotations.json")
	if err := os.WriteFile(path, []byte(annotations), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runFloorbench(t, "gold", "turnbench", "--annotations", path, "-o", "json")
	if string(got) != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("gold differs at byte %d:\n got  …%s\n want …%s", i, excerpt(got, i), excerpt([]byte(want), i))
	}
}

func excerpt(b []byte, at int) string {
	lo, hi := max(0, at-80), min(len(b), at+80)
	return string(b[lo:hi])
}

func TestReferenceScore(t *testing.T) {
	for _, c := range []struct{ gold, predictions, expected string }{
		{"gold.expected.json", "predictions.json", "score.expected.json"},
		{"gold-synthetic.json", "predictions-synthetic.json", "score-synthetic.expected.json"},
	} {
		t.Run(c.expected, func(t *testing.T) {
			got := runFloorbench(t, "score", "--gold", referencePath(c.gold), "--predictions", referencePath(c.predictions), "-o", "json")
			assertMatchesReference(t, got, referencePath(c.expected))
		})
	}
}

func TestReferenceSweep(t *testing.T) {
	for _, c := range referenceSweeps {
		t.Run(c.expected, func(t *testing.T) {
			got := runFloorbench(t, "sweep", "--gold", referencePath(c.gold), "--probs", referencePath(c.probs), "-o", "json")
			assertMatchesReference(t, got, referencePath(c.expected))
		})
	}
}

// assertMatchesReference checks that every value of the expected document
// is in floorbench's output with the same value: numbers compared as
// float64 exactly, null (the reference's NaN) only against null. Keys that
// floorbench adds (its protocol parameters) are not compared.
func assertMatchesReference(t *testing.T, got []byte, expectedPath string) {
	t.Helper()
	data, err := os.ReadFile(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	var want, have any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("%s: %v", expectedPath, err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatalf("floorbench output: %v\n%s", err, got)
	}
	if diff := referenceDiff("", want, have); diff != "" {
		t.Fatalf("floorbench differs from the reference (%s): %s", filepath.Base(expectedPath), diff)
	}
}

// referenceDiff returns where have first differs from want, or "".
func referenceDiff(path string, want, have any) string {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %v", path, have)
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			hv, ok := h[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if d := referenceDiff(path+"."+k, w[k], hv); d != "" {
				return d
			}
		}
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return fmt.Sprintf("%s: want %d items, got %v", path, len(w), have)
		}
		for i := range w {
			if d := referenceDiff(fmt.Sprintf("%s[%d]", path, i), w[i], h[i]); d != "" {
				return d
			}
		}
	case float64:
		h, ok := have.(float64)
		if !ok || math.Float64bits(h) != math.Float64bits(w) {
			return fmt.Sprintf("%s: want %v, got %v", path, w, have)
		}
	default: // strings, booleans and null
		if want != have {
			return fmt.Sprintf("%s: want %v, got %v", path, want, have)
		}
	}
	return ""
}
