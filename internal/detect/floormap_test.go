package detect

import "testing"

// track builds an activity track at 10 frames per second from a pattern:
// '#' speech, '.' silence.
func track(pattern string) []float64 {
	out := make([]float64, len(pattern))
	for i, c := range pattern {
		if c == '#' {
			out[i] = 1
		}
	}
	return out
}

func defaultMapping(t *testing.T) FloorMapping {
	s, err := Builtin("rms")
	if err != nil {
		t.Fatal(err)
	}
	return s.values.mapping()
}

func TestEOTRisesWithSilenceAfterOwnSpeech(t *testing.T) {
	m := defaultMapping(t) // eot_ramp_s 2, eot_min_speech_s 0.1
	eot, _ := m.Apply([][]float64{track("..####.....")}, 10)
	want := []float64{0, 0, 0, 0, 0, 0, 0.05, 0.1, 0.15, 0.2, 0.25}
	for i, w := range want {
		if d := eot[0][i] - w; d > 1e-12 || d < -1e-12 {
			t.Fatalf("frame %d: EOT %v, want %v (track %v)", i, eot[0][i], w, eot[0])
		}
	}
}

func TestEOTIgnoresRunsShorterThanMinSpeech(t *testing.T) {
	m := defaultMapping(t)
	m.EOTMinSpeech = 0.3
	eot, _ := m.Apply([][]float64{track("..##......")}, 10)
	for i, v := range eot[0] {
		if v != 0 {
			t.Fatalf("frame %d: EOT %v after a 0.2 s run with eot_min_speech_s 0.3", i, v)
		}
	}
}

func TestINTNeedsAnotherSpeakerUnlessUngated(t *testing.T) {
	m := defaultMapping(t) // int_ramp_s 1, lookback 0.5 s
	act := [][]float64{
		track("######.........."),
		track("....######...###"), // onset at 0.4 s overlaps; onset at 1.3 s does not
	}
	_, intr := m.Apply(act, 10)
	if got := intr[1][4]; got != 0.1 {
		t.Errorf("overlapping onset: INT %v on its first frame, want 0.1", got)
	}
	if got := intr[1][9]; got != 0.6 {
		t.Errorf("overlapping run after 0.6 s: INT %v, want 0.6", got)
	}
	// The second run begins 0.7 s after speaker 1 stopped: outside the 0.5 s lookback.
	if got := intr[1][15]; got != 0 {
		t.Errorf("run with nobody else speaking: INT %v, want 0", got)
	}
	m.INTGate = false
	_, intr = m.Apply(act, 10)
	if got := intr[1][15]; got == 0 {
		t.Error("int_gate false: a lone run should get an INT score")
	}
	if got := intr[0][0]; got != 0.1 {
		t.Errorf("int_gate false: first speaker's opening run INT %v, want 0.1", got)
	}
}
