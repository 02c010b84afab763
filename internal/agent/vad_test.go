package agent

import (
	"math"
	"slices"
	"testing"
)

// speech is seconds of digital silence with a 200 Hz tone of RMS -23
// dBFS over each segment: an agent's output with known speech.
func speech(seconds float64, segs ...Segment) []float32 {
	x := make([]float32, int(math.Round(seconds*SampleRate)))
	for _, s := range segs {
		tone(x, s.Onset, s.Offset, 0.1)
	}
	return x
}

// tone writes a 200 Hz sine of amplitude amp over [from, to) s.
func tone(x []float32, from, to float64, amp float64) {
	a, b := int(math.Round(from*SampleRate)), int(math.Round(to*SampleRate))
	for i := a; i < b && i < len(x); i++ {
		x[i] = float32(amp * math.Sin(2*math.Pi*200*float64(i)/SampleRate))
	}
}

func TestVADFindsSpeechToTheFrame(t *testing.T) {
	x := speech(8,
		Segment{1.00, 2.50},                      // speech
		Segment{3.00, 3.05},                      // a 50 ms click: dropped
		Segment{4.00, 4.50}, Segment{4.69, 5.00}, // a 190 ms gap: bridged
		Segment{6.00, 6.40}, Segment{6.60, 7.00}, // a 200 ms gap: two segments
	)
	got := DefaultVAD().Segments(x)
	want := []Segment{{1, 2.5}, {4, 5}, {6, 6.4}, {6.6, 7}}
	if !equalSegments(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
}

func equalSegments(a, b []Segment) bool {
	return slices.EqualFunc(a, b, func(x, y Segment) bool {
		return math.Abs(x.Onset-y.Onset) < 1e-9 && math.Abs(x.Offset-y.Offset) < 1e-9
	})
}

// A frame between the two thresholds continues speech but never starts it.
func TestVADHysteresis(t *testing.T) {
	x := speech(4, Segment{1, 1.5})
	quiet := 0.1 * math.Pow(10, -22.0/20) // -45 dBFS RMS as a sine: between off (-50) and on (-40)
	tone(x, 1.5, 2.0, quiet)
	tone(x, 3.0, 3.5, quiet)
	got := DefaultVAD().Segments(x)
	if want := []Segment{{1, 2}}; !equalSegments(got, want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
}

// The stream gives the batch's segments whatever the push sizes, and
// confirms speech once it has lasted min_speech_ms, dated at its onset.
func TestVADStreamMatchesBatch(t *testing.T) {
	x := speech(6, Segment{0.5, 0.58}, Segment{1.23, 2.71}, Segment{2.8, 3.0}, Segment{4.41, 5.9})
	v := DefaultVAD()
	want := v.Segments(x)
	for _, chunk := range []int{1, 7, 160, 320, 1000, len(x)} {
		s := v.Stream()
		confirmed := -1.0
		for i := 0; i < len(x); i += chunk {
			s.Push(x[i:min(len(x), i+chunk)])
			if at, ok := s.Onset(); ok && confirmed < 0 {
				confirmed = at
				if heard := s.Heard(); heard < 1.23+float64(v.MinSpeechMS)/1000-1e-9 {
					t.Fatalf("chunk %d: speech at %g confirmed after %g s heard", chunk, at, heard)
				}
			}
		}
		if got := s.Close(); !equalSegments(got, want) {
			t.Fatalf("chunk %d: stream segments %v, batch %v", chunk, got, want)
		}
		if math.Abs(confirmed-1.23) > 1e-9 {
			t.Fatalf("chunk %d: speech confirmed at %g, want 1.23 (the 80 ms burst at 0.5 is too short)", chunk, confirmed)
		}
	}
}

func TestVADValidate(t *testing.T) {
	bad := []VAD{
		{FrameMS: 0, OnDBFS: -40, OffDBFS: -50},
		{FrameMS: 10, OnDBFS: 3, OffDBFS: -50},
		{FrameMS: 10, OnDBFS: -40, OffDBFS: -30},
		{FrameMS: 10, OnDBFS: -40, OffDBFS: -50, MinSpeechMS: -1},
	}
	for _, v := range bad {
		if v.Validate() == nil {
			t.Errorf("%+v accepted", v)
		}
	}
	if err := DefaultVAD().Validate(); err != nil {
		t.Fatal(err)
	}
}
