package detect

import (
	"slices"
	"testing"
)

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

func defaultGate(t *testing.T) Gate {
	s, err := Builtin("rms")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.family.mapping(s.values)
	if err != nil {
		t.Fatal(err)
	}
	return m.(Gate)
}

func defaultEndpointer(t *testing.T) Endpointer {
	s, err := Builtin("rms-endpointer")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.family.mapping(s.values)
	if err != nil {
		t.Fatal(err)
	}
	e := m.(Endpointer)
	// The tracks below (and testdata/endpointer.golden) were written with
	// the INT ramp of 1 s the rule had before its default became 5 s.
	e.INTRamp = 1
	return e
}

// A gate cannot tell a hold from a turn end: the holder's pause scores the
// same EOT as the silence after their last word, so every threshold that
// fires on the turn end fires on the hold too. This is why the papers'
// acoustic baselines pay for their recall in false positives.
func TestGateFiresEOTOnAHoldAsOnATurnEnd(t *testing.T) {
	act := [][]float64{
		track("####..####........"), // a hold at frame 4, the turn ends at frame 10
		track("............######"),
	}
	eot, _ := defaultGate(t).Apply(act, 10)
	hold, end := eot[0][4], eot[0][10]
	if hold != end || hold != 1 {
		t.Errorf("EOT at the hold %v, at the turn end %v: want both 1", hold, end)
	}
	for i := range 12 {
		if eot[1][i] != 0 {
			t.Fatalf("frame %d: EOT %v for a speaker who has not spoken yet", i, eot[1][i])
		}
	}
	// The endpointer tells them apart, by the length of the silence.
	eot, _ = defaultEndpointer(t).Apply(act, 10)
	if hold, end := slices.Max(eot[0][4:6]), slices.Max(eot[0][10:]); !(hold < end) {
		t.Errorf("endpointer: EOT up to %v in the hold, up to %v after the turn end; want the hold lower", hold, end)
	}
}

// A gate cannot tell a backchannel from a floor claim: both overlap the
// holder's speech and score the listener's activity from their first frame.
func TestGateFiresINTOnABackchannelAsOnAClaim(t *testing.T) {
	act := [][]float64{
		track("################...."),
		track("..##.......#########"), // a backchannel at frame 2, a claim at frame 11
	}
	_, intr := defaultGate(t).Apply(act, 10)
	for j := range 2 {
		if bc, claim := intr[1][2+j], intr[1][11+j]; bc != claim || bc != 1 {
			t.Errorf("run frame %d: INT %v in the backchannel, %v in the claim; want both 1", j, bc, claim)
		}
	}
	// The endpointer scores the claim higher once it outlasts the backchannel.
	_, intr = defaultEndpointer(t).Apply(act, 10)
	if bc, claim := slices.Max(intr[1][2:4]), slices.Max(intr[1][11:]); !(bc < claim) {
		t.Errorf("endpointer: INT up to %v in the backchannel, up to %v in the claim; want the backchannel lower", bc, claim)
	}
}

// The gate's scores are the activity itself, frame by frame: 1 − a for EOT
// once the speaker has spoken, a for INT while the gate is open.
// A gate's scores are the speech decision, not the posterior: computed here
// from the activity with the hysteresis written out, EOT is 1 while a
// speaker who has spoken is silent and INT 1 while they speak (no INT gate).
func TestGateScoresAreTheSpeechDecision(t *testing.T) {
	act := choppyActivity()
	g := defaultGate(t)
	g.INTGate = false
	eot, intr := g.Apply(act, 50)
	for k := range act {
		speaking, spoken := false, false
		for i, a := range act[k] {
			if !speaking && a >= g.SpeechThreshold {
				speaking, spoken = true, true
			} else if speaking && a < g.SilenceThreshold {
				speaking = false
			}
			wantEOT, wantINT := 0.0, 0.0
			if speaking {
				wantINT = 1
			} else if spoken {
				wantEOT = 1
			}
			if eot[k][i] != wantEOT || intr[k][i] != wantINT {
				t.Fatalf("speaker %d frame %d: activity %v gives EOT %v and INT %v, want %v and %v",
					k+1, i, a, eot[k][i], intr[k][i], wantEOT, wantINT)
			}
		}
	}
}

func TestGateINTNeedsAnotherSpeakerWithinTheLookback(t *testing.T) {
	g := defaultGate(t) // lookback 0.5 s
	act := [][]float64{
		track("######.........."),
		track("....##...#....##"), // overlaps; 0.4 s after speaker 1's last speech frame; 0.9 s after
	}
	_, intr := g.Apply(act, 10)
	for i, want := range map[int]float64{4: 1, 5: 1, 9: 1, 14: 0, 15: 0} {
		if intr[1][i] != want {
			t.Errorf("frame %d: INT %v, want %v", i, intr[1][i], want)
		}
	}
	if intr[0][0] != 0 {
		t.Errorf("speaker 1 opens the conversation alone: INT %v, want 0", intr[0][0])
	}
	g.INTGate = false
	_, intr = g.Apply(act, 10)
	if intr[1][15] != 1 || intr[0][0] != 1 {
		t.Errorf("int_gate false: INT %v and %v on lone speech, want 1", intr[1][15], intr[0][0])
	}
}

// Both mappings are causal: the scores of the first i frames are the same
// whether or not the later frames exist.
func TestFloorMappingsAreCausal(t *testing.T) {
	act := choppyActivity()
	for name, m := range map[string]FloorMapping{"gate": defaultGate(t), "endpointer": defaultEndpointer(t)} {
		wholeEOT, wholeINT := m.Apply(act, 50)
		for i := 1; i < len(act[0]); i += 7 {
			prefix := make([][]float64, len(act))
			for k := range act {
				prefix[k] = act[k][:i]
			}
			eot, intr := m.Apply(prefix, 50)
			for k := range act {
				if !slices.Equal(eot[k], wholeEOT[k][:i]) || !slices.Equal(intr[k], wholeINT[k][:i]) {
					t.Fatalf("%s: speaker %d's first %d frames change when later frames are added", name, k+1, i)
				}
			}
		}
	}
}

func TestEndpointerEOTRisesWithSilenceAfterOwnSpeech(t *testing.T) {
	m := defaultEndpointer(t) // eot_ramp_s 2, eot_min_speech_s 0.1
	eot, _ := m.Apply([][]float64{track("..####.....")}, 10)
	want := []float64{0, 0, 0, 0, 0, 0, 0.05, 0.1, 0.15, 0.2, 0.25}
	for i, w := range want {
		if d := eot[0][i] - w; d > 1e-12 || d < -1e-12 {
			t.Fatalf("frame %d: EOT %v, want %v (track %v)", i, eot[0][i], w, eot[0])
		}
	}
}

func TestEndpointerEOTIgnoresRunsShorterThanMinSpeech(t *testing.T) {
	m := defaultEndpointer(t)
	m.EOTMinSpeech = 0.3
	eot, _ := m.Apply([][]float64{track("..##......")}, 10)
	for i, v := range eot[0] {
		if v != 0 {
			t.Fatalf("frame %d: EOT %v after a 0.2 s run with eot_min_speech_s 0.3", i, v)
		}
	}
}

func TestEndpointerINTNeedsAnotherSpeakerUnlessUngated(t *testing.T) {
	m := defaultEndpointer(t) // int_ramp_s 1, lookback 0.5 s
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
