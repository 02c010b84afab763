package agent

import (
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// AgentTable is MPTB's Table 4: per agent, START and STOP balanced
// accuracy with their scenario-bootstrap intervals, the action bias of
// each, and the median (p10–p90) entry and stop latencies.
func AgentTable(r Results) *report.Table {
	t := &report.Table{
		Title: "Full-duplex agents",
		Header: []string{"agent", "protocol", "START BA [95% CI]", "STOP BA [95% CI]", "bias START", "bias STOP",
			"entry ms p50 [p10, p90]", "stop ms p50 [p10, p90]", "trials", "errors"},
		Labels: 2,
	}
	for _, a := range r.Agents {
		t.Rows = append(t.Rows, []string{a.Agent, protocolCell(a),
			baWithCI(a.Start), baWithCI(a.Stop), report.Signed(float64(a.Start.ActionBias), 3), report.Signed(float64(a.Stop.ActionBias), 3),
			latency(a.Start.LatencyMS), latency(a.Stop.LatencyMS), fmt.Sprint(a.Trials), fmt.Sprint(a.Errors)})
	}
	t.Caption = caption(r.Params)
	return t
}

// FamilyTable counts every agent's trials per condition, as MPTB §G.1
// does: turn ends entered or not, holds entered or held, interruptions
// yielded or ignored, backchannels yielded or held; with the share of
// repeated scenarios whose repeats agree and, for STOP, how many stops a
// provider barge-in event coincides with (§G.3).
func FamilyTable(r Results) *report.Table {
	t := &report.Table{
		Title: "Full-duplex agents by family",
		Header: []string{"agent", "protocol", "family", "acted", "not acted", "rate [95% CI]", "consistent", "undecided", "errors",
			"latency ms p10/p50/p90", "reclaimed", "barge-in stops"},
		Labels: 3,
	}
	for _, a := range r.Agents {
		for _, c := range a.Conditions {
			f := families[c.Condition]
			bargeIn := report.Undefined
			if b := c.BargeIn; b != nil {
				bargeIn = fmt.Sprintf("%d/%d", b.WithEvent, b.Stops)
			}
			reclaimed := report.Undefined
			if c.Condition.Stop() {
				reclaimed = fmt.Sprint(c.Reclaimed)
			}
			t.Rows = append(t.Rows, []string{a.Agent, protocolCell(a), f.name,
				fmt.Sprintf("%d %s", c.Acted, f.acted), fmt.Sprintf("%d %s", c.Decided-c.Acted, f.notActed),
				rateWithCI(c.Rate, c.RateCI95), fmt.Sprintf("%d/%d", c.Consistent, c.Repeated),
				fmt.Sprint(c.NoStimulus + c.NotTalking + c.Truncated), fmt.Sprint(c.Errors),
				latencies(c.LatencyMS), reclaimed, bargeIn})
		}
	}
	t.Caption = "undecided: STOP trials without a stimulus (the agent was not heard to start) or whose agent was silent when it started, " +
		"and trials whose recording ends before their decision. " +
		"consistent: scenarios decided more than once whose repeats agree. barge-in stops: stops a provider interruption event coincides with."
	return t
}

// MeasuresTable is every agent's measures beyond BA and bias
// (docs/agents.md#measures): dead air and missed responses after turn
// ends, recovery after an interruption it yielded to, and stops within
// the target latency, each a rate with its 95% interval and its count.
func MeasuresTable(r Results) *report.Table {
	m := r.Params.Measures
	t := &report.Table{
		Title: "Full-duplex agents: dead air, missed responses, recovery, stop target",
		Header: []string{"agent", "protocol", fmt.Sprintf("dead air > %g s [95%% CI]", m.DeadAir), "missed responses [95% CI]",
			fmt.Sprintf("recovery within %g s [95%% CI]", m.Recovery), fmt.Sprintf("stops ≤ %g ms [95%% CI]", m.StopTargetMS)},
		Labels: 2,
	}
	for _, a := range r.Agents {
		ms := a.Measures
		t.Rows = append(t.Rows, []string{a.Agent, protocolCell(a),
			shareCell(ms.DeadAir), shareCell(ms.Missed), shareCell(ms.Recovery), shareCell(ms.StopWithinTarget)})
	}
	t.Caption = "dead air and missed responses: of the turn-end trials decided (no entry by the time given; no speech at all after the cue). " +
		"recovery: of the interruption trials yielded to, those whose agent answered the interrupter once their turn ended " +
		"(trials recorded too short to tell are left out). stops: of the interruption trials yielded to. count/trials in brackets after the interval."
	return t
}

func shareCell(s Share) string {
	return fmt.Sprintf("%s (%d/%d)", rateWithCI(s.Rate, s.CI95), s.Count, s.Trials)
}

func rateWithCI(rate report.Num, ci *[2]report.Num) string {
	if ci == nil {
		return report.Rate(float64(rate))
	}
	return report.RateWithCI(float64(rate), score.Interval{Lo: float64(ci[0]), Hi: float64(ci[1])})
}

// SpeakersTable is START and STOP balanced accuracy and action bias by
// the number of speakers in the conversation, the agent included.
func SpeakersTable(r Results) *report.Table {
	t := &report.Table{
		Title:  "Full-duplex agents by speaker count",
		Header: []string{"agent", "protocol", "speakers", "START BA", "START bias", "START n", "STOP BA", "STOP bias", "STOP n"},
		Labels: 3,
	}
	for _, a := range r.Agents {
		for _, s := range a.BySpeakers {
			t.Rows = append(t.Rows, []string{a.Agent, protocolCell(a), fmt.Sprint(s.Speakers),
				report.Rate(float64(s.Start.BalancedAccuracy)), report.Signed(float64(s.Start.ActionBias), 3), fmt.Sprint(trials(s.Start)),
				report.Rate(float64(s.Stop.BalancedAccuracy)), report.Signed(float64(s.Stop.ActionBias), 3), fmt.Sprint(trials(s.Stop))})
		}
	}
	return t
}

// protocolCell is the protocol, with the acoustic conditions when the
// trials were not played clean.
func protocolCell(a AgentResult) string {
	if a.Acoustics == "" {
		return a.Protocol
	}
	return a.Protocol + " (" + a.Acoustics + ")"
}

// family names a condition's trials and what acting means in them.
type family struct{ name, acted, notActed string }

var families = map[Condition]family{
	StartAfterEOT:      {"turn end (START+)", "entered", "silent"},
	StartDuringHold:    {"hold (START−)", "entered", "held"},
	StopOnInterruption: {"interruption (STOP+)", "yielded", "ignored"},
	StopOnBackchannel:  {"backchannel (STOP−)", "yielded", "held"},
	// The scenes beyond MPTB's (docs/agents.md#scenes).
	StopOnSideTalk:            {"side talk (STOP−)", "yielded", "held"},
	StopOnBackgroundSpeech:    {"background speech (STOP−)", "yielded", "held"},
	StopOnVocalisation:        {"vocalisation (STOP−)", "yielded", "held"},
	StopOnNoiseBurst:          {"noise burst (STOP−)", "yielded", "held"},
	StartDuringFillerHold:     {"filler hold (START−)", "entered", "held"},
	StartDuringBackgroundHold: {"background hold (START−)", "entered", "held"},
}

func trials(c AxisCounts) int { return c.TP + c.FN + c.FP + c.TN }

func baWithCI(a AxisResult) string {
	if a.CI95 == nil {
		return report.Rate(float64(a.BalancedAccuracy))
	}
	iv := a.CI95.BalancedAccuracy
	return report.RateWithCI(float64(a.BalancedAccuracy), score.Interval{Lo: float64(iv[0]), Hi: float64(iv[1])})
}

func latency(l report.LatencyMS) string {
	if math.IsNaN(float64(l.P50)) {
		return report.Undefined
	}
	return fmt.Sprintf("%s [%s, %s]", report.Fixed(float64(l.P50), 0), report.Fixed(float64(l.P10), 0), report.Fixed(float64(l.P90), 0))
}

func latencies(l report.LatencyMS) string {
	return report.Latencies(score.Latency{P10: float64(l.P10), P50: float64(l.P50), P90: float64(l.P90)})
}

// caption says what the table's numbers rest on.
func caption(p ScoreParams) string {
	w, v := p.Windows, p.VAD
	ci := "no intervals"
	if p.Bootstrap > 0 {
		ci = fmt.Sprintf("[lo, hi]: 95%% scenario bootstrap, %d resamples, seed %d", p.Bootstrap, p.Seed)
	}
	return fmt.Sprintf("BA = (recall + 1 − FPR)/2, bias = recall + FPR − 1; %s. Entry window [cue − %g s, cue + %g s]; "+
		"yield: speech ends within %g s of the stimulus and stays off %g s. VAD: %d ms frames, on %g dBFS, off %g dBFS, "+
		"min speech %d ms, min silence %d ms.", ci, w.EntryPre, w.Entry, w.Yield, w.StopSilence, v.FrameMS, v.OnDBFS, v.OffDBFS, v.MinSpeechMS, v.MinSilenceMS)
}
