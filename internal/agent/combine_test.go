package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

// Agents scored one by one and combined give the bytes of scoring all
// their trials at once: a sweep scores each agent in its own activity.
func TestCombineIsScoringTogether(t *testing.T) {
	p := DefaultScoreParams()
	p.Bootstrap = 100
	dir := recordRun(t, 2, neverYield, alwaysYield, flaky)
	trials, err := ReadTrials(dir, p, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	together, err := json.Marshal(Score(trials, p))
	if err != nil {
		t.Fatal(err)
	}
	var parts []Results
	for _, name := range []string{"flaky", "never-yield", "always-yield"} {
		var own []Trial
		for _, tr := range trials {
			if tr.Agent == name {
				own = append(own, tr)
			}
		}
		parts = append(parts, Score(own, p))
	}
	combined, err := json.Marshal(Combine(p, parts...))
	if err != nil {
		t.Fatal(err)
	}
	if string(combined) != string(together) {
		t.Errorf("combined results differ from scoring together:\n%s\n%s", combined, together)
	}
}

// A failed trial's recording keeps the scenario's times and its error,
// cut to a valid length on a character boundary, and passes validation.
func TestFailedRecording(t *testing.T) {
	preset, _ := ScenarioPresetByName("tiny-agent")
	d := preset.Designs[7] // an MPTB STOP design (stop-on-backchannel)
	r0, _, _, _ := simulate(neverYield, 0, d, 0)
	sc := &Scenario{ID: d.ID, Condition: d.Condition, Speakers: d.Speakers, Cue: r0.Cue, ValidUntil: r0.ValidUntil,
		Stimulus: &Stimulus{Kind: StimulusOf(d.Condition), Speaker: 1, Delay: 1.5, Samples: 8000}}
	long := strings.Repeat("é", 3000)
	r := FailedRecording(sc, 2, "bot", "duplex", "m", long)
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if r.Error == "" || len(r.Error) > limits.MaxRecordedErrorBytes || !strings.HasPrefix(long, r.Error) || r.Stimulus == nil || r.Stimulus.Start != nil {
		t.Errorf("failed recording: error of %d bytes, stimulus %+v", len(r.Error), r.Stimulus)
	}
	tr := DecideTrial(r, nil, DefaultScoreParams())
	if tr.Decision.Outcome != Failed || tr.Error != r.Error {
		t.Errorf("decided as %+v", tr.Decision)
	}
}
