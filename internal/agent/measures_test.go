package agent

import (
	"fmt"
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/report"
)

func show(b *bool) string {
	if b == nil {
		return "-"
	}
	return fmt.Sprint(*b)
}

// Each measure on recordings with known speech: dead air and missed
// responses after a turn end at 10 s, the stop target and recovery after
// an interruption played at 20 s for 2 s (the interrupter's turn ends at
// 22 s), with the default parameters (2 s, 3 s, 200 ms).
func TestMeasuresOfKnownSpeech(t *testing.T) {
	p := DefaultScoreParams()
	start := 20.0
	eot := func(end float64) *Recording {
		return &Recording{Condition: StartAfterEOT, Cue: 10, ValidUntil: end, Duration: end}
	}
	stop := func(end float64) *Recording {
		return &Recording{Condition: StopOnInterruption, Cue: 15, ValidUntil: end, Duration: end,
			Stimulus: &PlayedStimulus{Kind: Interruption, Samples: 2 * SampleRate, Start: &start}}
	}
	for _, c := range []struct {
		name   string
		r      *Recording
		speech []Segment
		want   string // dead air, missed, within target, recovered
	}{
		{"entry at 0.5 s", eot(15), []Segment{{10.5, 12}}, "false false - -"},
		{"entry at 2.5 s", eot(15), []Segment{{12.5, 14}}, "true false - -"},
		{"no entry", eot(15), nil, "true true - -"},
		{"speech before the window only", eot(15), []Segment{{5, 9}}, "true true - -"},
		{"recording too short to tell", eot(11), nil, "- - - -"},
		{"stop in 150 ms, answers at 22.5 s", stop(30), []Segment{{16, 20.15}, {22.5, 25}}, "- - true true"},
		{"stop in 300 ms, never answers", stop(30), []Segment{{16, 20.3}}, "- - false false"},
		{"stop in 150 ms, talks over the interrupter", stop(30), []Segment{{16, 20.15}, {21.5, 21.8}}, "- - true false"},
		{"stop, recording too short to tell", stop(24), []Segment{{16, 20.15}}, "- - true -"},
	} {
		var d Decision
		if c.r.Condition.Stop() {
			d = DecideStop(c.speech, start, c.r.Duration, nil, p.Windows)
		} else {
			d = DecideStart(c.speech, c.r.Cue, c.r.ValidUntil, c.r.Duration, p.Windows)
		}
		m := measureTrial(c.r, c.speech, d, p)
		if got := fmt.Sprint(show(m.DeadAir), " ", show(m.Missed), " ", show(m.WithinTarget), " ", show(m.Recovered)); got != c.want {
			t.Errorf("%s: %s, want %s (decision %+v)", c.name, got, c.want, d)
		}
	}
}

// An agent that always does the same has the point as its interval, and a
// measure that applies to nothing is undefined.
func TestMeasuresOfSimulatedAgents(t *testing.T) {
	p := DefaultScoreParams()
	p.Bootstrap, p.Seed = 200, 1
	r := scoreRun(t, recordRun(t, 3, alwaysYield, neverYield), p)
	a := agentResult(t, r, "always-yield")
	// Entries 0.6 s after the cue, stops 340-350 ms after the stimulus,
	// and no speech afterwards.
	if m := a.Measures; m.DeadAir.Count != 0 || m.DeadAir.Trials != 6 || m.Missed.Count != 0 || m.StopWithinTarget.Count != 0 ||
		m.StopWithinTarget.Trials != 6 || m.Recovery.Count != 0 || m.Recovery.Trials != 6 || *m.DeadAir.CI95 != [2]report.Num{0, 0} {
		t.Errorf("always-yield: %+v", m)
	}
	n := agentResult(t, r, "never-yield").Measures
	if n.StopWithinTarget.Trials != 0 || !math.IsNaN(float64(n.StopWithinTarget.Rate)) || n.StopWithinTarget.CI95 != nil {
		t.Errorf("never-yield stop target: %+v", n.StopWithinTarget)
	}
}
