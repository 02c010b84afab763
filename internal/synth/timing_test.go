package synth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/swbd"
)

// plannedTimeline lays out a plan with tone clips of each utterance's
// planned length (its words at WordsPerSecond), silent for plannedPause
// between its sentences as a speech engine is: stages 2 and 5 without the
// TTS engines, so the whole mptb preset runs in seconds.
func plannedTimeline(t *testing.T, p FloorPlan) Timeline {
	t.Helper()
	r := Rendering{Acts: make([]RenderedAct, len(p.Acts))}
	say := func(u Utterance) []float32 { return toneSpeech(u.Text) }
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

// plannedPause is the silence toneSpeech leaves between sentences, about
// what espeak-ng leaves at a full stop.
const plannedPause = 0.4

// toneSpeech is a tone of text's planned length, its words at
// WordsPerSecond, with a plannedPause of silence at every sentence end
// inside it (the silence taken out of the sentences' share).
func toneSpeech(text string) []float32 {
	words := strings.Fields(text)
	total := sec(max(0.2, float64(len(words))/WordsPerSecond))
	var sentences []int // words per sentence
	n := 0
	for i, w := range words {
		n++
		if strings.ContainsAny(w[len(w)-1:], ".?!") && i < len(words)-1 {
			sentences, n = append(sentences, n), 0
		}
	}
	sentences = append(sentences, n)
	pause := sec(plannedPause)
	speech := total - pause*(len(sentences)-1)
	if len(sentences) == 1 || speech < sec(0.2)*len(sentences) {
		return clip(total)
	}
	var out []float32
	for k, m := range sentences {
		if k > 0 {
			out = append(out, make([]float32, pause)...)
		}
		out = append(out, clip(speech*m/len(words))...)
	}
	return out
}

// ownSpeechApart checks that each speaker's events are at least 40 ms
// apart, as `corpus check` needs them (speech-free 10 to 30 ms outside
// every boundary).
func ownSpeechApart(events []floor.Event) error {
	last := map[int]floor.Event{}
	for _, e := range events { // in order of onset
		if p, ok := last[e.Speaker]; ok && e.Start < p.End+0.04 {
			return fmt.Errorf("speaker %d: %s at %.3f s within 40 ms of the end of %s at %.3f s", e.Speaker, e.Kind, e.Start, p.Kind, p.End)
		}
		if p, ok := last[e.Speaker]; !ok || e.End > p.End {
			last[e.Speaker] = e
		}
	}
	return nil
}

// restartsHaveCauses checks that every restart of a turn follows the
// onset of someone's non-floor-taking speech by at most the longest
// reaction the planner draws (drawRestart: 0.4 s).
func restartsHaveCauses(events []floor.Event) error {
	for _, e := range events {
		for _, r := range e.Restarts {
			found := false
			for _, o := range events {
				switch o.Kind {
				case floor.Backchannel, floor.NonFloorTakingInterruption, floor.NonContent:
					found = found || (o.Speaker != e.Speaker && o.Start < r.Start && r.Start <= o.Start+0.4+0.01)
				}
			}
			if !found {
				return fmt.Errorf("speaker %d restarts at %.3f s with no one speaking over them", e.Speaker, r.Start)
			}
		}
	}
	return nil
}

// The mptb preset's timing follows real conversation: its handover offsets
// and hold pauses are within a Kolmogorov–Smirnov distance of 0.10 of
// Switchboard's, and its INT items come in the lengths MPTB's error anatomy
// needs (short claims, long negatives).
func TestPresetTimingMatchesSwitchboard(t *testing.T) {
	if testing.Short() {
		// Run whole without the race detector by scripts/test.sh.
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
		tl := plannedTimeline(t, PlanFloor(s, StreamFor(1, spec.ID, StageFloor), StreamFor(1, spec.ID, StageOverlap)))
		g := floor.DeriveMPTB(spec.ID, tl.Duration(), tl.Events, floor.DefaultInterruptedGuard)
		offsets = append(offsets, floor.HandoverOffsets(floor.EventFloorSegments(tl.Events))...)
		reactions = append(reactions, floor.HolderReactions(floor.EventFloorSegments(tl.Events))...)
		pauses = append(pauses, floor.HoldPauses(g)...)
		if err := ownSpeechApart(tl.Events); err != nil {
			t.Errorf("%s: %v", spec.ID, err)
		}
		if err := restartsHaveCauses(tl.Events); err != nil {
			t.Errorf("%s: %v", spec.ID, err)
		}
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
	if c.HandoverKS > 0.10 || c.PauseKS > 0.10 || c.Reaction.KS > 0.10 {
		t.Errorf("KS against Switchboard: handover offsets %.3f, hold pauses %.3f, holder reactions %.3f (want ≤ 0.10)", c.HandoverKS, c.PauseKS, c.Reaction.KS)
	}
	if c.Reaction.N != claims {
		t.Errorf("%d holder reactions for %d claims: every claim starts in its holder's speech", c.Reaction.N, claims)
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
