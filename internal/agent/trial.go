package agent

import (
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

// ScoreParams is everything a score depends on besides the recordings
// (docs/agents.md#scoring); results record it.
type ScoreParams struct {
	VAD     VAD     `json:"vad"`
	Windows Windows `json:"windows"`
	// Bootstrap resamples of scenarios for the 95% intervals (0: none),
	// drawn from Seed.
	Bootstrap int    `json:"bootstrap"`
	Seed      uint64 `json:"bootstrap_seed"`
	// Measures are the parameters of the measures beyond BA and bias.
	Measures MeasureParams `json:"measures"`
}

// DefaultScoreParams are the published defaults.
func DefaultScoreParams() ScoreParams {
	return ScoreParams{VAD: DefaultVAD(), Windows: DefaultWindows(), Bootstrap: score.DefaultBootstrap, Measures: DefaultMeasureParams()}
}

// Validate checks the parameters, the bootstrap against lim.
func (p ScoreParams) Validate(lim limits.Limits) error {
	if err := p.VAD.Validate(); err != nil {
		return err
	}
	if err := p.Windows.Validate(); err != nil {
		return err
	}
	if err := p.Measures.Validate(p.Windows); err != nil {
		return err
	}
	if p.Bootstrap < 0 {
		return fmt.Errorf("bootstrap %d (want 0 or more resamples)", p.Bootstrap)
	}
	return lim.CheckResamples("bootstrap", p.Bootstrap)
}

// Trial is one recording and its decision.
type Trial struct {
	Agent      string
	Protocol   string
	ScenarioID string
	Condition  Condition
	Speakers   int
	Repeat     int
	// Acoustics is the label of the trial's acoustic conditions.
	Acoustics string
	Error     string
	Decision  Decision
	// Speech is what the VAD found in the agent's output.
	Speech []Segment
	// Measures are the trial's answers to the measures beyond BA.
	Measures TrialMeasures
}

// DecideTrial decides one recording from the agent's output audio
// (output: nil when the recording has none, which only a failed trial
// may be).
func DecideTrial(r *Recording, output []float32, p ScoreParams) Trial {
	t := Trial{Agent: r.Agent, Protocol: r.Protocol, ScenarioID: r.ScenarioID, Condition: r.Condition,
		Speakers: r.Speakers, Repeat: r.Repeat, Acoustics: Acoustics{}.Label(), Error: r.Error}
	if r.Acoustics != nil {
		t.Acoustics = r.Acoustics.Label()
	}
	if r.Error != "" {
		t.Decision = Decision{Outcome: Failed, Latency: math.NaN()}
		return t
	}
	t.Speech = p.VAD.Segments(output)
	switch {
	case !r.Condition.Stop():
		t.Decision = DecideStart(t.Speech, r.Cue, r.ValidUntil, r.Duration, p.Windows)
	case r.Stimulus.Start == nil:
		t.Decision = Decision{Outcome: NoStimulus, Latency: math.NaN()}
	default:
		t.Decision = DecideStop(t.Speech, *r.Stimulus.Start, r.Duration, r.Events, p.Windows)
	}
	t.Measures = measureTrial(r, t.Speech, t.Decision, p)
	return t
}

// Correct reports whether a decided trial did the right thing: acted on
// a positive condition, held back on a negative one.
func (t Trial) Correct() bool { return t.Decision.Acted == t.Condition.Positive() }
