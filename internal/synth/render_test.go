package synth

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
)

// tone is a 200 Hz burst of n samples between lead and tail silences.
func tone(lead, n, tail int, amp float64) []float32 {
	x := make([]float32, lead+n+tail)
	for i := range n {
		x[lead+i] = float32(amp * math.Sin(2*math.Pi*200*float64(i)/audio.Rate))
	}
	return x
}

func TestTrimSpeechCutsToTheSpeechFrames(t *testing.T) {
	x := tone(1600, 8000, 2400, 0.5)
	y := TrimSpeech(x)
	// The burst spans frames 50 to 299 of 32 samples; trimming keeps
	// exactly those.
	if len(y) != 8000 {
		t.Fatalf("trimmed to %d samples, want 8000", len(y))
	}
	// The 2 ms ramps (32 samples at 16 kHz) are raised cosines: sample i
	// from either end is scaled by 0.5 - 0.5 cos(pi (i+1)/33), which climbs
	// from 0.002 to 0.998; past them the burst is copied unchanged.
	src := x[1600 : 1600+8000]
	for i := range 32 {
		g := 0.5 - 0.5*math.Cos(math.Pi*float64(i+1)/33)
		for _, k := range []int{i, len(y) - 1 - i} {
			if want := float64(src[k]) * g; math.Abs(float64(y[k])-want) > 1e-6 {
				t.Fatalf("sample %d = %v, want %v (gain %.3f of %v)", k, y[k], want, g, src[k])
			}
		}
	}
	for _, k := range []int{32, 100, 4000, len(y) - 33} {
		if y[k] != src[k] {
			t.Fatalf("sample %d = %v outside the ramps, want it unchanged (%v)", k, y[k], src[k])
		}
	}
	if TrimSpeech(make([]float32, 500)) != nil {
		t.Fatal("silence trimmed to something")
	}
}

func TestCutSpeechStopsBeforeTheCut(t *testing.T) {
	x := append(tone(0, 3200, 1600, 0.5), tone(0, 3200, 0, 0.5)...) // speech, pause, speech
	y, ok := CutSpeech(x, 4000)                                     // inside the pause
	if !ok || len(y) != 3200 {
		t.Fatalf("cut in the pause kept %d samples (ok %v), want the 3200 before it", len(y), ok)
	}
	if _, ok := CutSpeech(x, 10); ok {
		t.Fatal("a cut before any speech kept something")
	}
}

func TestNewTTSNamesTheMissingProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := NewTTS("")
	if !errors.Is(err, ErrMissingProgram) || err.Error() != "speech program not found: espeak-ng (install it with: scripts/setup.sh speech)" {
		t.Fatalf("err = %v", err)
	}
}

func TestEnginesSpeakAt16kHzInEveryVoiceKind(t *testing.T) {
	e := enginesForTest(t)
	inv := Inventory()
	for _, v := range []Voice{inv[0], inv[50], inv[len(inv)-1]} {
		x, err := e[v.Engine].Synthesize(context.Background(), "Hello there, how are you?", v)
		if err != nil {
			t.Fatal(err)
		}
		// About a second and a half of speech at 16 kHz.
		if d := float64(len(TrimSpeech(x))) / audio.Rate; d < 0.8 || d > 3 {
			t.Fatalf("%s: %.2f s of speech", v.ID, d)
		}
	}
	bad := Voice{ID: "x", Engine: EngineEspeak, Name: "nonexist", Pitch: 50, Rate: 170}
	if _, err := e[EngineEspeak].Synthesize(context.Background(), "hi", bad); err == nil {
		t.Fatal("unknown voice accepted")
	}
}
