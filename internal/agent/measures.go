package agent

import (
	"fmt"
	"slices"

	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// MeasureParams are the parameters of the measures beyond balanced
// accuracy and bias (docs/agents.md#measures), recorded with the results.
type MeasureParams struct {
	// DeadAir: a turn end the agent has not answered this many seconds
	// later is dead air.
	DeadAir float64 `json:"dead_air_s"`
	// Recovery: an agent that yielded to an interruption recovers when it
	// answers the interrupter within this many seconds of the end of
	// their turn. The harness records that long after it.
	Recovery float64 `json:"recovery_s"`
	// StopTargetMS: the stop latency voice QA platforms ask for.
	StopTargetMS float64 `json:"stop_target_ms"`
}

// DefaultMeasureParams are the published defaults: two seconds of
// silence after a question is dead air to a caller; an answer to the
// interrupter is looked for as long as the entry window; the stop target
// is the 200 ms voice QA platforms set.
func DefaultMeasureParams() MeasureParams {
	return MeasureParams{DeadAir: 2.0, Recovery: 3.0, StopTargetMS: 200}
}

// Validate checks the parameters; the stop target is a share of the
// stops the yield window allows.
func (m MeasureParams) Validate(w Windows) error {
	switch {
	case !(m.DeadAir > 0 && m.DeadAir <= 60):
		return fmt.Errorf("measure dead_air_s %g (want in (0, 60])", m.DeadAir)
	case !(m.Recovery > 0 && m.Recovery <= 60):
		return fmt.Errorf("measure recovery_s %g (want in (0, 60])", m.Recovery)
	case !(m.StopTargetMS > 0 && m.StopTargetMS <= 1000*w.Yield):
		return fmt.Errorf("measure stop_target_ms %g (want in (0, yield_s %g s])", m.StopTargetMS, w.Yield)
	}
	return nil
}

// TrialMeasures are one trial's answers to the measures; nil where a
// measure does not apply to the trial or its recording cannot tell.
type TrialMeasures struct {
	// DeadAir: a decided turn-end trial with no speech from the entry
	// window's start to cue + DeadAir (whatever the entry window).
	DeadAir *bool `json:"dead_air,omitempty"`
	// Missed: a decided turn-end trial with no speech at all from the
	// entry window's start to the recording's end.
	Missed *bool `json:"missed_response,omitempty"`
	// Recovered: an interruption trial that yielded, whose agent then
	// started speaking within Recovery of the interrupter's end (from
	// entry_pre_s before it).
	Recovered *bool `json:"recovered,omitempty"`
	// WithinTarget: an interruption trial that yielded within StopTargetMS.
	WithinTarget *bool `json:"stop_within_target,omitempty"`
}

// measureTrial answers the measures for a decided trial of recording r.
func measureTrial(r *Recording, speech []Segment, d Decision, p ScoreParams) TrialMeasures {
	var m TrialMeasures
	if d.Outcome != Decided {
		return m
	}
	w, mp := p.Windows, p.Measures
	switch r.Condition {
	case StartAfterEOT:
		answered := func(by float64) bool {
			return slices.ContainsFunc(speech, func(s Segment) bool { return s.Offset > r.Cue-w.EntryPre && s.Onset <= by })
		}
		if r.Duration < r.Cue+mp.DeadAir && !answered(r.Duration) {
			return m // too short to tell
		}
		dead, missed := !answered(r.Cue+mp.DeadAir), !answered(r.Duration)
		m.DeadAir, m.Missed = &dead, &missed
	case StopOnInterruption:
		if !d.Acted {
			return m
		}
		within := 1000*d.Latency <= mp.StopTargetMS+1e-6
		m.WithinTarget = &within
		start := *r.Stimulus.Start
		stop, end := start+d.Latency, start+float64(r.Stimulus.Samples)/SampleRate
		recovered := slices.ContainsFunc(speech, func(s Segment) bool {
			return s.Onset > stop && s.Onset >= end-w.EntryPre && s.Onset <= end+mp.Recovery
		})
		if recovered || r.Duration >= end+mp.Recovery {
			m.Recovered = &recovered
		}
	}
	return m
}

// Share is how many of the trials a measure applies to have it, with a
// 95% scenario-bootstrap interval of the rate.
type Share struct {
	Trials int            `json:"trials"`
	Count  int            `json:"count"`
	Rate   report.Num     `json:"rate"`
	CI95   *[2]report.Num `json:"ci95,omitempty"`
}

// AgentMeasures are an agent's measures beyond BA and bias.
type AgentMeasures struct {
	DeadAir          Share `json:"dead_air"`
	Missed           Share `json:"missed_responses"`
	Recovery         Share `json:"recovery"`
	StopWithinTarget Share `json:"stop_within_target"`
}

// scoreMeasures aggregates one agent's trials (sorted by scenario and
// repeat) into its measures.
func scoreMeasures(trials []Trial, p ScoreParams) AgentMeasures {
	return AgentMeasures{
		DeadAir:          share(trials, func(m TrialMeasures) *bool { return m.DeadAir }, p),
		Missed:           share(trials, func(m TrialMeasures) *bool { return m.Missed }, p),
		Recovery:         share(trials, func(m TrialMeasures) *bool { return m.Recovered }, p),
		StopWithinTarget: share(trials, func(m TrialMeasures) *bool { return m.WithinTarget }, p),
	}
}

// share counts the trials whose measure of applies and is true, and
// resamples scenarios for the interval, as the axes' intervals do.
func share(trials []Trial, of func(TrialMeasures) *bool, p ScoreParams) Share {
	var per []score.Counts
	last := ""
	for _, t := range trials {
		v := of(t.Measures)
		if v == nil {
			continue
		}
		if len(per) == 0 || t.ScenarioID != last {
			per, last = append(per, score.Counts{}), t.ScenarioID
		}
		if *v {
			per[len(per)-1].TP++
		} else {
			per[len(per)-1].FN++
		}
	}
	s := score.Sum(per)
	out := Share{Trials: s.TP + s.FN, Count: s.TP, Rate: report.Num(ratio(s.TP, s.TP+s.FN))}
	if p.Bootstrap > 0 && len(per) > 0 {
		rates, _ := score.NewResamples(len(per), p.Bootstrap, p.Seed).Rates(per)
		iv := score.CI95(rates)
		out.CI95 = &[2]report.Num{report.Num(iv.Lo), report.Num(iv.Hi)}
	}
	return out
}
