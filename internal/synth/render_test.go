package synth

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	// espeak-ng writes 22,050 Hz, the inventory's flite voices 16 kHz and
	// flite's built-in kal 8 kHz: each must come back at 16 kHz, as long
	// as the program's own file lasts and sounding the same.
	kal := Voice{ID: "flite:kal", Engine: EngineFlite, Name: "kal", Pitch: 105, Rate: 175}
	lastFlite := inv[slices.IndexFunc(inv, func(v Voice) bool { return v.ID == "flite:kal16" })]
	for _, c := range []struct {
		v       Voice
		rawRate int
	}{{inv[0], 22050}, {inv[50], 22050}, {lastFlite, 16000}, {kal, 8000}} {
		v := c.v
		tts, raw := keepProgramOutput(t, e[v.Engine].(*ProgramTTS))
		x, err := tts.Synthesize(context.Background(), "Hello there, how are you?", v)
		if err != nil {
			t.Fatal(err)
		}
		src, rate := readPCM16(t, raw())
		if rate != c.rawRate {
			t.Fatalf("%s: the program wrote %d Hz, want %d Hz", v.ID, rate, c.rawRate)
		}
		want := float64(len(src)) * 16000 / float64(rate)
		if math.Abs(float64(len(x))-want) > 2 {
			t.Fatalf("%s: %d samples from %d at %d Hz, want %.1f at 16 kHz", v.ID, len(x), len(src), rate, want)
		}
		// The source read at the same instants (linear interpolation) is
		// the same waveform below 8 kHz, where speech has its energy.
		if c := correlationAt16k(x, src, rate); c < 0.9 {
			t.Fatalf("%s: correlation %.3f with the %d Hz source read at 16 kHz", v.ID, c, rate)
		}
		// About a second and a half of speech.
		if d := float64(len(TrimSpeech(x))) / audio.Rate; d < 0.8 || d > 3 {
			t.Fatalf("%s: %.2f s of speech", v.ID, d)
		}
	}
	bad := Voice{ID: "x", Engine: EngineEspeak, Name: "nonexist", Pitch: 50, Rate: 170}
	if _, err := e[EngineEspeak].Synthesize(context.Background(), "hi", bad); err == nil {
		t.Fatal("unknown voice accepted")
	}
}

// keepProgramOutput returns a copy of p whose program is a wrapper that
// keeps a copy of the WAV the real one writes (after -w or -o), and a
// function reading that copy.
func keepProgramOutput(t *testing.T, p *ProgramTTS) (*ProgramTTS, func() []byte) {
	t.Helper()
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.wav")
	wrapper := filepath.Join(dir, "wrap")
	script := "#!/bin/sh\n'" + p.Program + "' \"$@\" || exit $?\nprev=\nfor a in \"$@\"; do\n" +
		"  if [ \"$prev\" = -w ] || [ \"$prev\" = -o ]; then cp \"$a\" '" + kept + "'; fi\n  prev=$a\ndone\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w := *p
	w.Program = wrapper
	return &w, func() []byte {
		b, err := os.ReadFile(kept)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// readPCM16 reads a mono 16-bit PCM WAV from its RIFF chunks, apart from
// the audio package, and returns its samples and rate.
func readPCM16(t *testing.T, b []byte) ([]float64, int) {
	t.Helper()
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("not a WAV file (%d bytes)", len(b))
	}
	rate := 0
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		body := b[off+8 : min(len(b), off+8+size)]
		switch id {
		case "fmt ":
			if ch, bits := binary.LittleEndian.Uint16(body[2:]), binary.LittleEndian.Uint16(body[14:]); ch != 1 || bits != 16 {
				t.Fatalf("%d channels of %d bits, want mono 16-bit", ch, bits)
			}
			rate = int(binary.LittleEndian.Uint32(body[4:]))
		case "data":
			x := make([]float64, len(body)/2)
			for i := range x {
				x[i] = float64(int16(binary.LittleEndian.Uint16(body[2*i:])))
			}
			return x, rate
		}
		off += 8 + size + size%2
	}
	t.Fatal("no data chunk")
	return nil, 0
}

// correlationAt16k is the normalised correlation of x (16 kHz) with src
// (at rate) linearly interpolated at x's sample instants.
func correlationAt16k(x []float32, src []float64, rate int) float64 {
	var xy, xx, yy float64
	for i, v := range x {
		p := float64(i) * float64(rate) / 16000
		k := int(p)
		if k+1 >= len(src) {
			break
		}
		s := src[k] + (p-float64(k))*(src[k+1]-src[k])
		xy += float64(v) * s
		xx += float64(v) * float64(v)
		yy += s * s
	}
	return xy / math.Sqrt(xx*yy)
}
