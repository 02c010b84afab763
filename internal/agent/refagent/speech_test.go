package refagent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
)

// frameAt is a 20 ms frame of noise at noiseDB dBFS, plus a 220 Hz tone
// at toneDB when toneDB is not -Inf.
func frameAt(rng *rand.Rand, noiseDB, toneDB float64) []float32 {
	x := make([]float32, proto.FrameSamples)
	n, a := math.Pow(10, noiseDB/20), math.Sqrt2*math.Pow(10, toneDB/20)
	for i := range x {
		x[i] = float32(n*rng.NormFloat64() + a*math.Sin(2*math.Pi*220*float64(i)/proto.SampleRate))
	}
	return x
}

// Speech starts after the onset of loud frames and ends after the
// hangover of quiet ones; steady noise, however loud, is not speech once
// the floor has it, and a frame under the minimum level never is.
func TestSpeechDetectorHysteresis(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d, err := NewSpeechDetector(DefaultSpeech())
	if err != nil {
		t.Fatal(err)
	}
	var starts, ends []int
	for k := range 200 {
		tone := math.Inf(-1)
		if k >= 60 && k < 100 {
			tone = -20 // 20 dB over the noise: speech
		}
		if k >= 140 && k < 141 {
			tone = -20 // one loud frame: a click, not speech
		}
		s, e := d.Push(frameAt(rng, -40, tone))
		if s {
			starts = append(starts, k)
		}
		if e {
			ends = append(ends, k)
		}
	}
	if len(starts) != 1 || starts[0] != 61 || len(ends) != 1 || ends[0] != 99+15 {
		t.Errorf("speech started at frames %v, ended at %v; want [61] (two loud frames) and [114] (15 quiet ones)", starts, ends)
	}
	quiet, _ := NewSpeechDetector(DefaultSpeech())
	for k := range 50 {
		if s, _ := quiet.Push(frameAt(rng, -80, -55)); s {
			t.Fatalf("a tone at -55 dBFS, under the minimum level, started speech at frame %d", k)
		}
	}
}

// A setting the detector cannot work with is refused with the field named.
func TestSpeechParamsAreChecked(t *testing.T) {
	for _, p := range []func(*SpeechParams){
		func(p *SpeechParams) { p.OffMarginDB = 20 },
		func(p *SpeechParams) { p.FloorRiseDBPerS = -1 },
		func(p *SpeechParams) { p.Onset = 0 },
	} {
		s := DefaultSpeech()
		p(&s)
		if _, err := NewSpeechDetector(s); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}
