package agent

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// near compares rates and latencies read off frame times (10 ms frames
// from sample 0: exact to rounding).
func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// The extremes MPTB §RQ4 observed, and a selective agent, scored from
// their output audio.
func TestScoreKnownAgents(t *testing.T) {
	p := DefaultScoreParams()
	p.Bootstrap = 200
	r := scoreRun(t, recordRun(t, 3, neverYield, alwaysYield, selective), p)
	cases := []struct {
		agent                       string
		startRecall, startFPR       float64
		stopRecall, stopFPR         float64
		startBias, stopBias, stopBA float64
	}{
		{"never-yield", 1, 0, 0, 0, 0, -1, 0.5},
		{"always-yield", 1, 1, 1, 1, 1, 1, 0.5},
		{"selective", 1, 0, 1, 0, 0, 0, 1},
	}
	for _, c := range cases {
		a := agentResult(t, r, c.agent)
		if !near(float64(a.Start.Recall), c.startRecall) || !near(float64(a.Start.FPRate), c.startFPR) ||
			!near(float64(a.Stop.Recall), c.stopRecall) || !near(float64(a.Stop.FPRate), c.stopFPR) {
			t.Errorf("%s: START recall %v fpr %v, STOP recall %v fpr %v", c.agent, a.Start.Recall, a.Start.FPRate, a.Stop.Recall, a.Stop.FPRate)
		}
		if !near(float64(a.Start.ActionBias), c.startBias) || !near(float64(a.Stop.ActionBias), c.stopBias) || !near(float64(a.Stop.BalancedAccuracy), c.stopBA) {
			t.Errorf("%s: bias START %v STOP %v, STOP BA %v", c.agent, a.Start.ActionBias, a.Stop.ActionBias, a.Stop.BalancedAccuracy)
		}
		// Every resample of an agent that always does the same gives the
		// same rates: the interval is the point.
		if ci := a.Stop.CI95.BalancedAccuracy; !near(float64(ci[0]), c.stopBA) || !near(float64(ci[1]), c.stopBA) {
			t.Errorf("%s: STOP BA interval %v", c.agent, ci)
		}
		if a.Trials != 42 || a.Start.Scenarios != 4 || a.Stop.Scenarios != 4 || !near(float64(a.Stop.Consistency), 1) {
			t.Errorf("%s: %d trials, %d/%d scenarios, consistency %v", c.agent, a.Trials, a.Start.Scenarios, a.Stop.Scenarios, a.Stop.Consistency)
		}
	}
	// Entry latencies: 0.6 s plus 10 ms per design index (0 and 1 are the
	// turn-end designs), three repeats each; stop latencies 0.3 s plus the
	// same (4 and 5 are the interruption designs).
	a := agentResult(t, r, "always-yield")
	if l := a.Start.LatencyMS; !near(float64(l.P10), 600) || !near(float64(l.P50), 605) || !near(float64(l.P90), 610) {
		t.Errorf("entry latency %+v, want 600/605/610 ms", l)
	}
	if l := a.Stop.LatencyMS; !near(float64(l.P10), 340) || !near(float64(l.P50), 345) || !near(float64(l.P90), 350) {
		t.Errorf("stop latency %+v, want 340/345/350 ms", l)
	}
	int := a.Conditions[2]
	if int.Condition != StopOnInterruption || int.BargeIn.Stops != 6 || int.BargeIn.WithEvent != 6 || !near(float64(int.BargeIn.Share), 1) {
		t.Errorf("barge-in on interruptions: %+v", int.BargeIn)
	}
}

// An agent that does the opposite on its second repeat: no repeated
// scenario is consistent, and rates count every repeat.
func TestScoreConsistencyAcrossRepeats(t *testing.T) {
	p := DefaultScoreParams()
	p.Bootstrap = 0
	a := agentResult(t, scoreRun(t, recordRun(t, 3, flaky), p), "flaky")
	if !near(float64(a.Start.Consistency), 0) || !near(float64(a.Stop.Consistency), 0) {
		t.Errorf("consistency START %v STOP %v, want 0", a.Start.Consistency, a.Stop.Consistency)
	}
	if !near(float64(a.Stop.Recall), 2.0/3) || !near(float64(a.Stop.FPRate), 1.0/3) || a.Stop.CI95 != nil {
		t.Errorf("STOP recall %v fpr %v ci %v", a.Stop.Recall, a.Stop.FPRate, a.Stop.CI95)
	}
	for _, c := range a.Conditions {
		want := 2 // tiny-agent has two scenarios of each MPTB condition, one of each scene
		if !c.Condition.MPTB() {
			want = 1
		}
		if c.Repeated != want || c.Consistent != 0 {
			t.Errorf("%s: %d of %d repeated scenarios consistent", c.Condition, c.Consistent, c.Repeated)
		}
	}
}

// Re-scoring a stored run with other windows changes exactly the
// decisions those windows change, and never contacts an agent: the
// decisions equal the windows applied to the speech each recording was
// made with.
func TestRescoringWithOtherWindows(t *testing.T) {
	dir := recordRun(t, 2, alwaysYield)
	p := DefaultScoreParams()
	p.Bootstrap = 0
	p.Windows.Yield = 0.305 // stops come 0.3 s plus 10 ms per design index after the stimulus
	p.Windows.Entry = 0.615 // entries 0.6 s plus 10 ms per design index after the cue
	trials, err := ReadTrials(dir, p, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	preset, _ := ScenarioPresetByName("tiny-agent")
	for _, tr := range trials {
		i := slices.IndexFunc(preset.Designs, func(d Design) bool { return d.ID == tr.ScenarioID })
		r, _, _, segs := simulate(alwaysYield, i, preset.Designs[i], tr.Repeat)
		want := DecideStart(segs, r.Cue, r.ValidUntil, r.Duration, p.Windows)
		if r.Condition.Stop() {
			want = DecideStop(segs, *r.Stimulus.Start, r.Duration, r.Events, p.Windows)
		}
		if tr.Decision.Acted != want.Acted || !sameLatency(tr.Decision.Latency, want.Latency) {
			t.Errorf("%s r%d: %+v, want %+v", tr.ScenarioID, tr.Repeat, tr.Decision, want)
		}
		// Design 0 (turn end) enters at 0.6 s, design 1 at 0.61: both
		// inside 0.615; the hold designs (2, 3) at 0.62 and 0.63: outside.
		// Stops of designs 4 and 5: 0.34 and 0.35 s, outside 0.305.
		if wantActed := i <= 1; tr.Decision.Acted != wantActed {
			t.Errorf("design %d: acted %v with the narrow windows", i, tr.Decision.Acted)
		}
	}
	stored, _ := json.Marshal(Score(trials, p))
	again, _ := json.Marshal(scoreRun(t, dir, p))
	if string(stored) != string(again) {
		t.Error("scoring the same recordings twice gave different results")
	}
}

func TestReadTrialsRefusesDuplicates(t *testing.T) {
	dir := recordRun(t, 1, neverYield)
	preset, _ := ScenarioPresetByName("tiny-agent")
	r, in, out, _ := simulate(neverYield, 0, preset.Designs[0], 0)
	if err := WriteRecording(dir, "copy", r, in, out); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTrials(dir, DefaultScoreParams(), limits.Default()); err == nil {
		t.Fatal("two recordings of one trial accepted")
	}
}

// A failed trial and a STOP trial whose agent never started are counted,
// not decided.
func TestScoreCountsUndecidedTrials(t *testing.T) {
	preset, _ := ScenarioPresetByName("tiny-agent")
	dir := t.TempDir()
	r, _, _, _ := simulate(neverYield, 0, preset.Designs[0], 0)
	r.Error = "dial duplex ws://127.0.0.1:1: connection refused"
	if err := WriteRecording(dir, "failed", r, nil, nil); err != nil {
		t.Fatal(err)
	}
	r, in, _, _ := simulate(neverYield, 6, preset.Designs[6], 0)
	r.Stimulus.Onset, r.Stimulus.Start = nil, nil
	if err := WriteRecording(dir, "silent", r, in, make([]float32, r.Samples)); err != nil {
		t.Fatal(err)
	}
	p := DefaultScoreParams()
	a := agentResult(t, scoreRun(t, dir, p), "never-yield")
	eot, bc := a.Conditions[0], a.Conditions[3]
	if a.Errors != 1 || eot.Errors != 1 || eot.Decided != 0 || bc.NoStimulus != 1 || bc.Decided != 0 || !math.IsNaN(float64(a.Stop.BalancedAccuracy)) {
		t.Errorf("errors %d, turn end %+v, backchannel %+v", a.Errors, eot, bc)
	}
}
