package synth

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/swbd"
)

// plannedTimeline lays out a plan with tone clips of each utterance's
// planned length (its words at WordsPerSecond): stages 2 and 5 without the
// TTS engines, so the whole mptb preset runs in seconds.
func plannedTimeline(t *testing.T, p FloorPlan) Timeline {
	t.Helper()
	r := Rendering{Acts: make([]RenderedAct, len(p.Acts))}
	say := func(u Utterance) []float32 {
		return clip(sec(max(0.2, float64(len(strings.Fields(u.Text)))/WordsPerSecond)))
	}
	for i, a := range p.Acts {
		if a.Kind == floor.Turn {
			for _, u := range a.Segments {
				r.Acts[i].Clips = append(r.Acts[i].Clips, say(u))
			}
			continue
		}
		r.Acts[i].Clips = [][]float32{say(a.Utterance)}
	}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// The mptb preset's timing follows real conversation: its handover offsets
// and hold pauses are within a Kolmogorov–Smirnov distance of 0.10 of
// Switchboard's, and its INT items come in the lengths MPTB's error anatomy
// needs (short claims, long negatives).
func TestPresetTimingMatchesSwitchboard(t *testing.T) {
	if testing.Short() {
		t.Skip("lays out the whole mptb preset")
	}
	preset, err := PresetByName("mptb", 1)
	if err != nil {
		t.Fatal(err)
	}
	var offsets, pauses, reactions []float64
	var claims, shortClaims, negatives, longNegatives, pastWindow int
	for _, spec := range preset.Conversations {
		s := WriteScript(spec, StreamFor(1, spec.ID, StageScript))
		tl := plannedTimeline(t, PlanFloor(s, StreamFor(1, spec.ID, StageFloor)))
		g := floor.DeriveMPTB(spec.ID, tl.Duration(), tl.Events, floor.DefaultInterruptedGuard)
		offsets = append(offsets, floor.HandoverOffsets(floor.EventFloorSegments(tl.Events))...)
		reactions = append(reactions, floor.HolderReactions(floor.EventFloorSegments(tl.Events))...)
		pauses = append(pauses, floor.HoldPauses(g)...)
		for _, e := range tl.Events {
			switch e.Kind {
			case floor.Interruption:
				claims++
				if e.Words <= 3 {
					shortClaims++
				}
			case floor.Backchannel, floor.NonFloorTakingInterruption, floor.NonContent:
				negatives++
				if e.Words >= 4 {
					longNegatives++
				}
				if e.End-e.Start > floor.DefaultTauMax {
					pastWindow++
				}
			}
		}
	}
	c := floor.CheckTiming(offsets, pauses, reactions)
	t.Logf("handovers n=%d KS %.3f; holds n=%d KS %.3f; holder reactions n=%d median %.3f KS %.3f; claims %d (%d of 1-3 words); negatives %d (%d of 4+ words, %d past 3 s)",
		c.Handovers, c.HandoverKS, c.Pauses, c.PauseKS, c.Reaction.N, c.Reaction.Median, c.Reaction.KS, claims, shortClaims, negatives, longNegatives, pastWindow)
	if c.HandoverKS > 0.10 || c.PauseKS > 0.10 {
		t.Errorf("KS against Switchboard: handover offsets %.3f, hold pauses %.3f (want ≤ 0.10)", c.HandoverKS, c.PauseKS)
	}
	if c.Pauses < 150 {
		t.Errorf("only %d holds of 0.2 s or more", c.Pauses)
	}
	if 5*shortClaims < claims {
		t.Errorf("%d of %d claims have 1-3 words, want at least a fifth", shortClaims, claims)
	}
	if 5*longNegatives < negatives || pastWindow == 0 {
		t.Errorf("%d of %d INT negatives have 4+ words (want a fifth), %d last past the 3 s window", longNegatives, negatives, pastWindow)
	}
	// The same draws moved by a third of a second are far from Switchboard:
	// the check can fail.
	for i := range pauses {
		pauses[i] += 0.33
	}
	if d := swbd.KS(pauses, swbd.Pauses().Values); d <= 0.10 {
		t.Errorf("shifted holds still pass: KS %.3f", d)
	}
}
