package synth

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
)

// reactionShares are the three OverlapShares as a laid-out timeline
// realises them.
type reactionShares struct {
	listener, inPause     int // backchannels and non-content; those starting in a silence of the holder
	overSpeech, restarted int // non-floor-taking speech starting over the holder's speech; restarts
	claims, claimPauses   int // claims; those the claimer's turn follows after a pause
}

// count adds a timeline's reactions: the holder is the speaker on the floor
// before the event, silent when its clean channel is all zeros in the 10 ms
// from the event's onset.
func (c *reactionShares) count(tl Timeline) {
	silent := func(speaker int, t0 float64) bool {
		i := int(math.Round(t0 * audio.Rate))
		return audio.Peak(tl.Channels[speaker-1][i:min(i+audio.Rate/100, len(tl.Channels[0]))]) == 0
	}
	for _, e := range tl.Events {
		switch e.Kind {
		case floor.Turn:
			c.restarted += len(e.Restarts)
		case floor.Interruption:
			c.claims++
			for _, t := range tl.Events {
				if t.Kind == floor.Turn && t.Speaker == e.Speaker && t.Start >= e.End && t.FloorBefore == e.Speaker {
					if t.Start-e.End >= floor.MinPause {
						c.claimPauses++
					}
					break
				}
			}
		case floor.Backchannel, floor.NonContent, floor.NonFloorTakingInterruption:
			quiet := silent(e.FloorBefore, e.Start)
			if e.Kind != floor.NonFloorTakingInterruption {
				c.listener++
				if quiet {
					c.inPause++
				}
			}
			if !quiet {
				c.overSpeech++
			}
		}
	}
}

func share(n, of int) float64 { return float64(n) / float64(max(of, 1)) }

// Laid out, a sample of the mptb preset (two conversations of every cell)
// realises its shares: backchannels and non-content vocalisations starting
// in a silence of the holder (its pauses and holds), restarts per
// non-floor-taking vocalisation over speech, claims followed by a pause.
// With every share at zero none of it happens but the backchannels that
// contest holds.
func TestOverlapSharesAreRealised(t *testing.T) {
	if testing.Short() {
		// Run whole without the race detector by scripts/test.sh.
		t.Skip("lays out 48 conversations twice")
	}
	preset, err := PresetByName("mptb", 1)
	if err != nil {
		t.Fatal(err)
	}
	measure := func(sh OverlapShares) reactionShares {
		var c reactionShares
		for _, spec := range preset.Conversations {
			if spec.Split != dialogue.Dev {
				continue
			}
			spec.Overlap = sh
			s := WriteScript(spec, StreamFor(1, spec.ID, StageScript))
			c.count(plannedTimeline(t, PlanFloor(s, StreamFor(1, spec.ID, StageFloor), StreamFor(1, spec.ID, StageOverlap))))
		}
		return c
	}
	want := presetOverlap
	c := measure(want)
	t.Logf("in pauses %d of %d, restarts %d of %d over speech, claim pauses %d of %d",
		c.inPause, c.listener, c.restarted, c.overSpeech, c.claimPauses, c.claims)
	for _, s := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"backchannels in pauses", share(c.inPause, c.listener), want.BackchannelsInPauses, 0.1},
		{"restarts", share(c.restarted, c.overSpeech), want.Restarts, 0.06},
		{"claim pauses", share(c.claimPauses, c.claims), want.ClaimPauses, 0.12},
	} {
		if math.Abs(s.got-s.want) > s.tol {
			t.Errorf("%s: %.3f realised, %.2f configured (tolerance %.2f)", s.name, s.got, s.want, s.tol)
		}
	}
	none := measure(OverlapShares{})
	if none.restarted != 0 || none.claimPauses != 0 || share(none.inPause, none.listener) > 0.1 {
		t.Errorf("zero shares: %d restarts, %d claim pauses, %d of %d backchannels in silence", none.restarted, none.claimPauses, none.inPause, none.listener)
	}
}
