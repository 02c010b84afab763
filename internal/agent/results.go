package agent

import (
	"cmp"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// ResultsSchemaVersion is the version of the results' JSON shape.
const ResultsSchemaVersion = 1

// Results are the scores of every agent in a set of trials
// (docs/agents.md#scoring), with the parameters they were computed with
// and every trial's decision.
type Results struct {
	SchemaVersion int           `json:"schema_version"`
	Params        ScoreParams   `json:"params"`
	Agents        []AgentResult `json:"agents"`
	Trials        []TrialResult `json:"trials"`
}

// AgentResult is one agent's scores over one protocol.
type AgentResult struct {
	Agent    string `json:"agent"`
	Protocol string `json:"protocol"`
	// Acoustics labels the acoustic conditions (absent: clean).
	Acoustics  string            `json:"acoustics,omitempty"`
	Trials     int               `json:"trials"`
	Errors     int               `json:"errors"`
	Start      AxisResult        `json:"start"`
	Stop       AxisResult        `json:"stop"`
	Conditions []ConditionResult `json:"conditions"`
	BySpeakers []SpeakersResult  `json:"by_speakers"`
	// Measures are dead air, missed responses, recovery after an
	// interruption and stops within the target (docs/agents.md#measures).
	Measures AgentMeasures `json:"measures"`
}

// AxisResult scores START (entering after a turn end against entering in
// a hold) or STOP (yielding to an interruption against yielding to a
// backchannel) over the decided trials: TP and FN are the positive
// condition's trials that acted and did not, FP and TN the negative's.
type AxisResult struct {
	TP               int        `json:"tp"`
	FN               int        `json:"fn"`
	FP               int        `json:"fp"`
	TN               int        `json:"tn"`
	Recall           report.Num `json:"recall"`
	FPRate           report.Num `json:"fp_rate"`
	BalancedAccuracy report.Num `json:"balanced_accuracy"`
	ActionBias       report.Num `json:"action_bias"`
	// CI95 are scenario-bootstrap intervals (absent without resamples).
	CI95 *AxisCI `json:"ci95,omitempty"`
	// LatencyMS: START, entry latency (onset minus cue) of the turn-end
	// trials that entered; STOP, stop latency (audible stop minus the
	// stimulus start) of the interruption trials that yielded.
	LatencyMS report.LatencyMS `json:"latency_ms"`
	// Scenarios with a decided trial, and the share of those decided more
	// than once whose repeats all agree.
	Scenarios   int        `json:"scenarios"`
	Consistency report.Num `json:"consistency"`
}

// AxisCI are 95% intervals as [lo, hi].
type AxisCI struct {
	Recall           [2]report.Num `json:"recall"`
	FPRate           [2]report.Num `json:"fp_rate"`
	BalancedAccuracy [2]report.Num `json:"balanced_accuracy"`
	ActionBias       [2]report.Num `json:"action_bias"`
}

// ConditionResult counts one condition's trials (MPTB §G.1's families).
type ConditionResult struct {
	Condition Condition `json:"condition"`
	Trials    int       `json:"trials"`
	Decided   int       `json:"decided"`
	Acted     int       `json:"acted"`
	// Rate is the entry rate (START) or the yield rate (STOP), with its
	// 95% scenario-bootstrap interval (absent without resamples).
	Rate       report.Num       `json:"rate"`
	RateCI95   *[2]report.Num   `json:"rate_ci95,omitempty"`
	Errors     int              `json:"errors"`
	NoStimulus int              `json:"no_stimulus"`
	NotTalking int              `json:"not_talking"`
	Truncated  int              `json:"truncated"`
	LatencyMS  report.LatencyMS `json:"latency_ms"` // of the trials that acted
	// Scenarios decided more than once, those whose repeats all agree,
	// and the share.
	Repeated    int        `json:"repeated_scenarios"`
	Consistent  int        `json:"consistent_scenarios"`
	Consistency report.Num `json:"consistency"`
	// STOP conditions: brief yields that were reclaimed, and the barge-in
	// instrumentation of MPTB §G.3.
	Reclaimed int      `json:"reclaimed"`
	BargeIn   *BargeIn `json:"barge_in,omitempty"`
}

// BargeIn says how often a provider's interruption event coincides with
// the agent's audible stop.
type BargeIn struct {
	Stops     int        `json:"stops"`
	WithEvent int        `json:"with_event"`
	Share     report.Num `json:"share"`
	// EventWithoutStop counts trials the provider said it was interrupted
	// in (inside the yield window) whose agent went on talking.
	EventWithoutStop int `json:"event_without_stop"`
}

// SpeakersResult is one speaker count's START and STOP scores (no
// intervals: the cells are small).
type SpeakersResult struct {
	Speakers int        `json:"speakers"`
	Start    AxisCounts `json:"start"`
	Stop     AxisCounts `json:"stop"`
}

// AxisCounts are an axis's counts and rates without intervals.
type AxisCounts struct {
	TP               int        `json:"tp"`
	FN               int        `json:"fn"`
	FP               int        `json:"fp"`
	TN               int        `json:"tn"`
	BalancedAccuracy report.Num `json:"balanced_accuracy"`
	ActionBias       report.Num `json:"action_bias"`
}

// TrialResult is one trial's decision as results list it.
type TrialResult struct {
	Agent              string     `json:"agent"`
	Protocol           string     `json:"protocol"`
	Acoustics          string     `json:"acoustics,omitempty"`
	ScenarioID         string     `json:"scenario_id"`
	Condition          Condition  `json:"condition"`
	Speakers           int        `json:"speakers"`
	Repeat             int        `json:"repeat"`
	Outcome            Outcome    `json:"outcome"`
	Acted              bool       `json:"acted"`
	LatencyMS          report.Num `json:"latency_ms"`
	Reclaimed          bool       `json:"reclaimed,omitempty"`
	BargeIn            bool       `json:"barge_in,omitempty"`
	BargeInWithoutStop bool       `json:"barge_in_without_stop,omitempty"`
	TrialMeasures
	Error string `json:"error,omitempty"`
}

// BalancedAccuracy is (recall + 1 - fpr)/2 and ActionBias recall + fpr - 1
// (MPTB §4): 0.5 and 0 for an agent that acts at random, bias -1 for one
// that never acts and +1 for one that always does.
func BalancedAccuracy(recall, fpr float64) float64 { return (recall + 1 - fpr) / 2 }

// ActionBias is recall + fpr - 1.
func ActionBias(recall, fpr float64) float64 { return recall + fpr - 1 }

// Score aggregates decided trials into results, one AgentResult per
// (agent, protocol, acoustics), sorted (clean first); intervals resample
// scenarios.
func Score(trials []Trial, p ScoreParams) Results {
	res := Results{SchemaVersion: ResultsSchemaVersion, Params: p, Agents: []AgentResult{}, Trials: []TrialResult{}}
	sorted := slices.Clone(trials)
	slices.SortFunc(sorted, func(a, b Trial) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(acousticsOrder(a), acousticsOrder(b)),
			cmp.Compare(a.ScenarioID, b.ScenarioID), cmp.Compare(a.Repeat, b.Repeat))
	})
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].Agent == sorted[i].Agent && sorted[j].Protocol == sorted[i].Protocol &&
			acousticsOrder(sorted[j]) == acousticsOrder(sorted[i]) {
			j++
		}
		res.Agents = append(res.Agents, scoreAgent(sorted[i:j], p))
		i = j
	}
	for _, t := range sorted {
		res.Trials = append(res.Trials, trialResult(t))
	}
	return res
}

// acousticsOrder sorts clean trials before any other acoustics.
func acousticsOrder(t Trial) string {
	if t.Acoustics == (Acoustics{}).Label() {
		return ""
	}
	return t.Acoustics
}

func trialResult(t Trial) TrialResult {
	d := t.Decision
	return TrialResult{Agent: t.Agent, Protocol: t.Protocol, Acoustics: acousticsOrder(t), ScenarioID: t.ScenarioID, Condition: t.Condition,
		Speakers: t.Speakers, Repeat: t.Repeat, Outcome: d.Outcome, Acted: d.Acted, LatencyMS: report.Num(ms(d.Latency)),
		Reclaimed: d.Reclaimed, BargeIn: d.BargeIn, BargeInWithoutStop: d.BargeInWithoutStop, TrialMeasures: t.Measures, Error: t.Error}
}

// scoreAgent scores one agent's trials, sorted by scenario and repeat.
func scoreAgent(trials []Trial, p ScoreParams) AgentResult {
	r := AgentResult{Agent: trials[0].Agent, Protocol: trials[0].Protocol, Acoustics: acousticsOrder(trials[0]), Trials: len(trials),
		BySpeakers: []SpeakersResult{}}
	for _, t := range trials {
		if t.Decision.Outcome == Failed {
			r.Errors++
		}
	}
	for _, c := range Conditions {
		if c.MPTB() || slices.ContainsFunc(trials, func(t Trial) bool { return t.Condition == c }) {
			r.Conditions = append(r.Conditions, scoreCondition(trials, c, p))
		}
	}
	r.Measures = scoreMeasures(trials, p)
	r.Start = scoreAxis(trials, StartAfterEOT, StartDuringHold, p)
	r.Stop = scoreAxis(trials, StopOnInterruption, StopOnBackchannel, p)
	for n := 2; n <= 5; n++ {
		in := func(t Trial) bool { return t.Speakers != n }
		sub := slices.DeleteFunc(slices.Clone(trials), in)
		if len(sub) == 0 {
			continue
		}
		r.BySpeakers = append(r.BySpeakers, SpeakersResult{Speakers: n,
			Start: axisCounts(scenarioCounts(sub, StartAfterEOT, StartDuringHold)),
			Stop:  axisCounts(scenarioCounts(sub, StopOnInterruption, StopOnBackchannel))})
	}
	return r
}

// scenarioRuns groups the decided trials of condition c by scenario, in
// scenario order: each entry lists the repeats' Acted.
func scenarioRuns(trials []Trial, c Condition) [][]Trial {
	var out [][]Trial
	for i, t := range trials {
		if t.Condition != c || t.Decision.Outcome != Decided {
			continue
		}
		if len(out) > 0 {
			last := out[len(out)-1]
			if last[0].ScenarioID == t.ScenarioID {
				out[len(out)-1] = append(last, trials[i])
				continue
			}
		}
		out = append(out, []Trial{t})
	}
	return out
}

// consistency counts the scenarios decided more than once and those
// whose repeats all agree.
func consistency(runs [][]Trial) (repeated, consistent int) {
	for _, run := range runs {
		if len(run) < 2 {
			continue
		}
		repeated++
		if !slices.ContainsFunc(run, func(t Trial) bool { return t.Decision.Acted != run[0].Decision.Acted }) {
			consistent++
		}
	}
	return repeated, consistent
}

func scoreCondition(trials []Trial, c Condition, p ScoreParams) ConditionResult {
	r := ConditionResult{Condition: c}
	var lat []float64
	var b BargeIn
	for _, t := range trials {
		if t.Condition != c {
			continue
		}
		r.Trials++
		d := t.Decision
		switch d.Outcome {
		case Failed:
			r.Errors++
		case NoStimulus:
			r.NoStimulus++
		case NotTalking:
			r.NotTalking++
		case Truncated:
			r.Truncated++
		case Decided:
			r.Decided++
			if d.Acted {
				r.Acted++
				lat = append(lat, ms(d.Latency))
			}
			if d.Reclaimed {
				r.Reclaimed++
			}
			if d.Acted && d.BargeIn {
				b.WithEvent++
			}
			if d.BargeInWithoutStop {
				b.EventWithoutStop++
			}
		}
	}
	r.Rate = report.Num(ratio(r.Acted, r.Decided))
	r.RateCI95 = rateCI(trials, c, p)
	r.LatencyMS = latencyMS(lat)
	r.Repeated, r.Consistent = consistency(scenarioRuns(trials, c))
	r.Consistency = report.Num(ratio(r.Consistent, r.Repeated))
	if c.Stop() {
		b.Stops = r.Acted
		b.Share = report.Num(ratio(b.WithEvent, b.Stops))
		r.BargeIn = &b
	}
	return r
}

// rateCI is the 95% interval of condition c's rate over scenario
// resamples (nil without resamples or decided trials).
func rateCI(trials []Trial, c Condition, p ScoreParams) *[2]report.Num {
	runs := scenarioRuns(trials, c)
	if p.Bootstrap == 0 || len(runs) == 0 {
		return nil
	}
	per := make([]score.Counts, len(runs))
	for i, run := range runs {
		for _, t := range run {
			if t.Decision.Acted {
				per[i].TP++
			} else {
				per[i].FN++
			}
		}
	}
	rates, _ := score.NewResamples(len(per), p.Bootstrap, p.Seed).Rates(per)
	iv := score.CI95(rates)
	return &[2]report.Num{report.Num(iv.Lo), report.Num(iv.Hi)}
}

// scenarioCounts are the per-scenario counts of an axis, in scenario
// order: a positive-condition scenario's repeats are TP or FN, a
// negative one's FP or TN.
func scenarioCounts(trials []Trial, pos, neg Condition) []score.Counts {
	var out []score.Counts
	for _, c := range []Condition{pos, neg} {
		for _, run := range scenarioRuns(trials, c) {
			var k score.Counts
			for _, t := range run {
				switch {
				case c == pos && t.Decision.Acted:
					k.TP++
				case c == pos:
					k.FN++
				case t.Decision.Acted:
					k.FP++
				default:
					k.TN++
				}
			}
			out = append(out, k)
		}
	}
	return out
}

func axisCounts(per []score.Counts) AxisCounts {
	s := score.Sum(per)
	return AxisCounts{TP: s.TP, FN: s.FN, FP: s.FP, TN: s.TN,
		BalancedAccuracy: report.Num(BalancedAccuracy(s.Recall(), s.FPRate())),
		ActionBias:       report.Num(ActionBias(s.Recall(), s.FPRate()))}
}

// scoreAxis scores START or STOP with scenario-bootstrap intervals.
func scoreAxis(trials []Trial, pos, neg Condition, p ScoreParams) AxisResult {
	per := scenarioCounts(trials, pos, neg)
	c := axisCounts(per)
	s := score.Sum(per)
	r := AxisResult{TP: c.TP, FN: c.FN, FP: c.FP, TN: c.TN, Recall: report.Num(s.Recall()), FPRate: report.Num(s.FPRate()),
		BalancedAccuracy: c.BalancedAccuracy, ActionBias: c.ActionBias, Scenarios: len(per)}
	var lat []float64
	for _, t := range trials {
		if t.Condition == pos && t.Decision.Outcome == Decided && t.Decision.Acted {
			lat = append(lat, ms(t.Decision.Latency))
		}
	}
	r.LatencyMS = latencyMS(lat)
	rp, cp := consistency(append(scenarioRuns(trials, pos), scenarioRuns(trials, neg)...))
	r.Consistency = report.Num(ratio(cp, rp))
	if p.Bootstrap > 0 && len(per) > 0 {
		r.CI95 = axisCI(score.NewResamples(len(per), p.Bootstrap, p.Seed), per)
	}
	return r
}

// axisCI is the percentile interval of every rate over the resamples.
func axisCI(rs *score.Resamples, per []score.Counts) *AxisCI {
	recall, fpr := rs.Rates(per)
	ba, bias := make([]float64, len(recall)), make([]float64, len(recall))
	for i := range recall {
		ba[i], bias[i] = BalancedAccuracy(recall[i], fpr[i]), ActionBias(recall[i], fpr[i])
	}
	pair := func(v []float64) [2]report.Num {
		iv := score.CI95(v)
		return [2]report.Num{report.Num(iv.Lo), report.Num(iv.Hi)}
	}
	return &AxisCI{Recall: pair(recall), FPRate: pair(fpr), BalancedAccuracy: pair(ba), ActionBias: pair(bias)}
}

func latencyMS(v []float64) report.LatencyMS {
	l := score.Counts{LatenciesMS: v}.Latency()
	return report.LatencyMS{P10: report.Num(l.P10), P50: report.Num(l.P50), P90: report.Num(l.P90)}
}

// ms converts a latency to milliseconds, rounded to the microsecond: the
// times it comes from are frame times on a 16 kHz clock, and the rounding
// keeps 0.6 s from printing as 599.9999999999997 ms.
func ms(seconds float64) float64 { return math.Round(seconds*1e6) / 1e3 }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
