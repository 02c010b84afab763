package audio

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bandPower sums the DFT power of x at 25 Hz steps from lo to hi.
func bandPower(x []float32, lo, hi float64) float64 {
	var p float64
	for f := lo; f <= hi; f += 25 {
		var re, im float64
		for i, v := range x {
			a := 2 * math.Pi * f * float64(i) / Rate
			re += float64(v) * math.Cos(a)
			im -= float64(v) * math.Sin(a)
		}
		p += re*re + im*im
	}
	return p
}

func TestPinkNoiseFallsThreeDBPerOctave(t *testing.T) {
	x := PinkNoise(rand.New(rand.NewPCG(1, 2)), 8192)
	// Bins are 25 Hz apart: 9 in the low octave, 129 in the one four
	// octaves up. Power per bin falls as 1/f, so 16x in frequency is 12 dB.
	perBinLow := bandPower(x, 200, 400) / 9
	perBinHigh := bandPower(x, 3200, 6400) / 129
	ratioDB := 10 * math.Log10(perBinLow/perBinHigh)
	if ratioDB < 9 || ratioDB > 15 {
		t.Fatalf("low/high per-bin power %.1f dB, want about 12 (3 dB per octave over 4 octaves)", ratioDB)
	}
	if r := RMS(x); math.Abs(r-1) > 1e-3 {
		t.Fatalf("RMS %.4f, want 1", r)
	}
}

func TestNoiseIsDeterministicPerSeed(t *testing.T) {
	a := WhiteNoise(rand.New(rand.NewPCG(7, 9)), 100)
	b := WhiteNoise(rand.New(rand.NewPCG(7, 9)), 100)
	c := WhiteNoise(rand.New(rand.NewPCG(7, 10)), 100)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different noise")
		}
	}
	if a[0] == c[0] && a[1] == c[1] {
		t.Fatal("different seeds, same noise")
	}
}

func TestBabbleIsSpeechLevelMurmur(t *testing.T) {
	clip := sine(200, Rate, Rate/2, 0.3)
	x, err := BabbleNoise(rand.New(rand.NewPCG(3, 4)), 3*Rate, 6, [][]float32{clip})
	if err != nil {
		t.Fatal(err)
	}
	if r := RMS(x); math.Abs(r-1) > 1e-3 {
		t.Fatalf("RMS %.4f, want 1", r)
	}
	// Six talkers leave almost no silent 100 ms stretch.
	silent := 0
	for _, r := range FrameRMS(x, Rate/10) {
		if r < 0.05 {
			silent++
		}
	}
	if silent > 2 {
		t.Fatalf("%d silent frames in six-talker babble", silent)
	}
	if _, err := BabbleNoise(rand.New(rand.NewPCG(3, 4)), 10, 2, nil); err == nil {
		t.Fatal("babble without clips accepted")
	}
}

func TestBrownNoiseFallsSixDBPerOctave(t *testing.T) {
	x := BrownNoise(rand.New(rand.NewPCG(1, 2)), 8192)
	// 200-400 Hz against 1600-3200 Hz per bin: three octaves at 6 dB.
	perBinLow := bandPower(x, 200, 400) / 9
	perBinHigh := bandPower(x, 1600, 3200) / 65
	ratioDB := 10 * math.Log10(perBinLow/perBinHigh)
	if ratioDB < 14 || ratioDB > 22 {
		t.Fatalf("low/high per-bin power %.1f dB, want about 18 (6 dB per octave over 3 octaves)", ratioDB)
	}
	if r := RMS(x); math.Abs(r-1) > 1e-3 {
		t.Fatalf("RMS %.4f, want 1", r)
	}
}

func TestHumNoiseIsMainsHarmonics(t *testing.T) {
	x := HumNoise(rand.New(rand.NewPCG(3, 5)), 8000)
	// 0.5 s: 50, 60 and 70 Hz make whole cycles, so their bins are
	// orthogonal; 70 Hz is a harmonic of neither mains frequency.
	mains := max(bandPower(x, 50, 50), bandPower(x, 60, 60))
	between := bandPower(x, 70, 70)
	if mains < 100*between {
		t.Fatalf("mains bin power %.3g, 55 Hz %.3g: want the hum 20 dB above", mains, between)
	}
	if r := RMS(x); math.Abs(r-1) > 1e-3 {
		t.Fatalf("RMS %.4f, want 1", r)
	}
}
