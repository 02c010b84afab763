package detect

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// openSystem opens a built-in family or a spec file under testdata.
func openSystem(t testing.TB, name string, rt Runtime) Detector {
	t.Helper()
	var s *System
	var err error
	if name == "onnx" {
		s, err = LoadSystem("testdata/silero-onnx.yaml", limits.Default())
	} else {
		s, err = Builtin(name)
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Open(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// runtimeFor returns the runtime a family needs, requiring ONNX Runtime for
// the families that run models.
func runtimeFor(t testing.TB, family string) Runtime {
	if f, err := FamilyByName(family); err == nil && f.Model {
		return onnxRuntime(t)
	}
	return RuntimeFromEnv()
}

func detect(t testing.TB, d Detector, c *Conversation) *Scores {
	t.Helper()
	s, err := d.Detect(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// cut returns the conversation as it was heard up to time at.
func cut(c *Conversation, at float64) *Conversation {
	n := int(at * SampleRate)
	out := &Conversation{ID: c.ID, SampleRate: c.SampleRate, Duration: at}
	for _, ch := range c.Channels {
		out.Channels = append(out.Channels, ch[:n])
	}
	return out
}

// The audio-driven families must be causal (docs/architecture.md#detectors): the scores up to t
// are the same whether or not the audio after t exists. Activity changes
// at speech onsets and offsets, so the cuts fall just after each of them,
// where a detector peeking even one frame ahead would see something the cut
// audio lacks; the offsets put them on and off every detector's hop.
func TestScoresUpToTDoNotDependOnLaterAudio(t *testing.T) {
	full, where := dialogue(t)
	var cuts []float64
	for _, p := range where {
		for _, after := range []float64{0.004, 0.011, 0.023, 0.041, 0.077} {
			cuts = append(cuts, p.start+after, p.end+after)
		}
	}
	for _, family := range []string{"rms", "rms-endpointer", "webrtcvad", "silero", "silero-endpointer", "onnx"} {
		t.Run(family, func(t *testing.T) {
			d := openSystem(t, family, runtimeFor(t, family))
			whole := detect(t, d, full)
			requireFloorEvents(t, whole)
			for _, at := range cuts {
				part := detect(t, d, cut(full, at))
				frames := frameCount(at, whole.FrameRate)
				for k := range whole.EOT {
					if len(part.EOT[k]) != frames || len(part.INT[k]) != frames {
						t.Fatalf("cut at %gs: %d/%d frames, want %d", at, len(part.EOT[k]), len(part.INT[k]), frames)
					}
					if i := firstDifference(whole.EOT[k][:frames], part.EOT[k]); i >= 0 {
						t.Fatalf("cut at %gs: speaker %d EOT frame %d is %v, %v with the full audio", at, k+1, i, part.EOT[k][i], whole.EOT[k][i])
					}
					if i := firstDifference(whole.INT[k][:frames], part.INT[k]); i >= 0 {
						t.Fatalf("cut at %gs: speaker %d INT frame %d is %v, %v with the full audio", at, k+1, i, part.INT[k][i], whole.INT[k][i])
					}
				}
			}
		})
	}
}

// requireFloorEvents guards the causality test against tracks that would
// pass it trivially: the dialogue has turn ends and an interruption, so
// every speaker needs EOT scores and someone INT scores.
func requireFloorEvents(t testing.TB, s *Scores) {
	t.Helper()
	anyINT := false
	for k := range s.EOT {
		if slices.Max(s.EOT[k]) == 0 {
			t.Fatalf("speaker %d: no EOT score above 0 in a dialogue with turn ends", k+1)
		}
		anyINT = anyINT || slices.Max(s.INT[k]) > 0
	}
	if !anyINT {
		t.Fatal("no INT score above 0 in a dialogue with an interruption")
	}
}

func firstDifference(a, b []float64) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// The generic onnx family, given Silero's spec, must reproduce the built-in
// Silero systems exactly, under either floor rule: the spec format is enough
// to describe the model.
func TestOnnxSpecOfSileroGivesTheBuiltinScores(t *testing.T) {
	rt := onnxRuntime(t)
	c, _ := conversation(t, "three", 3, 9, []utterance{
		{0, 0.3, "en-us", "Let us start with the budget for the next quarter."},
		{1, 3.6, "en-gb-scotland+m3", "I have the numbers here, they look fine."},
		{2, 5.0, "en-029+f3", "Sorry, which numbers?"},
		{0, 6.4, "en-us", "The ones from last week."},
	})
	for family, rule := range map[string]string{"silero": RuleGate, "silero-endpointer": RuleEndpointer} {
		t.Run(family, func(t *testing.T) {
			spec, err := LoadSystem("testdata/silero-onnx.yaml", limits.Default())
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.SetParam("floor_rule", rule); err != nil {
				t.Fatal(err)
			}
			d, err := spec.Open(rt)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			builtin := detect(t, openSystem(t, family, rt), c)
			generic := detect(t, d, c)
			requireFloorEvents(t, builtin)
			for k := range builtin.EOT {
				if i := firstDifference(builtin.EOT[k], generic.EOT[k]); i >= 0 {
					t.Fatalf("speaker %d EOT frame %d: onnx spec %v, built-in %v", k+1, i, generic.EOT[k][i], builtin.EOT[k][i])
				}
				if i := firstDifference(builtin.INT[k], generic.INT[k]); i >= 0 {
					t.Fatalf("speaker %d INT frame %d: onnx spec %v, built-in %v", k+1, i, generic.INT[k][i], builtin.INT[k][i])
				}
			}
		})
	}
}

// Every acoustic family should find the speech it was given: per 20 ms
// frame, its activity agrees with where the utterances were placed (the
// measure TestSileroAgreesWithTheTinyCorpusEventLog applies to a corpus).
func TestVoiceActivityAgreesWithPlacedSpeech(t *testing.T) {
	c, where := dialogue(t)
	for family, want := range map[string]float64{"silero": 0.90, "webrtcvad": 0.85, "rms": 0.85} {
		t.Run(family, func(t *testing.T) {
			s, err := Builtin(family)
			if err != nil {
				t.Fatal(err)
			}
			d, err := s.Open(runtimeFor(t, family))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			a, ok := d.(*audioDetector)
			if !ok {
				t.Fatalf("%s is not an audio detector", family)
			}
			const fps = 50
			grid, err := activityOnGrid(context.Background(), a.model, c, fps)
			if err != nil {
				t.Fatal(err)
			}
			agree, total := 0, 0
			for k := range grid {
				for i, a := range grid[k] {
					truth := speaking(where, k, float64(i+1)/fps)
					if (a >= 0.5) == truth {
						agree++
					}
					total++
				}
			}
			got := float64(agree) / float64(total)
			t.Logf("%s: %.3f of frames agree", family, got)
			if got < want {
				t.Errorf("%s agrees with the placed speech on %.3f of frames, want >= %.2f", family, got, want)
			}
		})
	}
}

// speaking reports whether speaker k's speech covers time at.
func speaking(where []placed, k int, at float64) bool {
	for _, p := range where {
		if p.speaker == k && at >= p.start && at < p.end {
			return true
		}
	}
	return false
}

func ExampleFamilies() {
	for _, f := range Families() {
		fmt.Println(f.Name)
	}
	// Output:
	// rms
	// rms-endpointer
	// webrtcvad
	// webrtcvad-endpointer
	// silero
	// silero-endpointer
	// onnx
	// external
	// realtime-vad
}
