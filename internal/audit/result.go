package audit

import (
	"fmt"
	"math"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// SchemaVersion of the audit's JSON.
const SchemaVersion = 1

// Report is an audit: `floorbench corpus audit -o json` prints it, and a
// bundle carries it under each generated corpus.
type Report struct {
	SchemaVersion int         `json:"schema_version"`
	Corpus        CorpusInfo  `json:"corpus"`
	Params        Params      `json:"params"`
	Tasks         []TaskAudit `json:"tasks"`
}

// CorpusInfo is what the audit read.
type CorpusInfo struct {
	Kind       string `json:"kind"`
	Dev        int    `json:"dev_conversations"`
	Test       int    `json:"test_conversations"`
	Unlabelled int    `json:"unlabelled_conversations"` // skipped
	// ThresholdSplit is where thresholds were picked: dev, or the scored
	// split itself when dev has no labelled conversation (optimistic).
	ThresholdSplit string `json:"threshold_split"`
	// WordCounts says whether the labels carry word counts, which the
	// oracle-transcript feature needs.
	WordCounts bool `json:"word_counts"`
}

// Params are the parameters an audit ran with.
type Params struct {
	Protocol        score.Params `json:"protocol"`
	FrameRate       float64      `json:"frame_rate_hz"`
	OverlapLookback float64      `json:"overlap_lookback_s"`
	Split           string       `json:"split"`
	// INTFlagRecall and EOTFlagRecall are null when the flag is off.
	INTFlagRecall *float64 `json:"int_shortcut_recall"`
	EOTFlagRecall *float64 `json:"eot_shortcut_recall"`
	VAD           string   `json:"voice_activity"`
	Resamples     int      `json:"bootstrap_resamples"`
	Seed          uint64   `json:"bootstrap_seed"`
}

func newParams(o Options) Params {
	flag := func(r float64) *float64 {
		if r == 0 {
			return nil
		}
		return &r
	}
	return Params{Protocol: o.Params, FrameRate: o.FrameRate, OverlapLookback: overlapLookback, Split: o.Split,
		INTFlagRecall: flag(o.INTFlagRecall), EOTFlagRecall: flag(o.EOTFlagRecall),
		VAD: "rms (default parameters)", Resamples: o.Resamples, Seed: o.Seed}
}

// TaskAudit is every feature of one task, the best of them, and the
// shortcuts flagged.
type TaskAudit struct {
	Task     floor.Task      `json:"task"`
	Features []FeatureResult `json:"features"`
	// Best names the feature a leaderboard of the features ranks first
	// (in budget first, then test recall); "" when none has an
	// operating point.
	Best      string   `json:"best"`
	Shortcuts []string `json:"shortcuts"` // feature names
}

// FeatureResult is one feature through the protocol: its outcome under
// the configured negative window, and under each window.
type FeatureResult struct {
	Name   string `json:"name"`
	Label  string `json:"label"`
	Oracle bool   `json:"oracle"`
	// CrossChannel features are reported, never flagged (Feature).
	CrossChannel bool   `json:"cross_channel"`
	Unit         string `json:"unit"`
	Candidates   int    `json:"n_candidates"`
	Outcome
	// Shortcut is true when the feature is flagged under either window.
	Shortcut bool           `json:"shortcut"`
	ByWindow FeatureWindows `json:"by_window"`
}

// Outcome is a feature's operating point under one negative window: its
// threshold and rule, dev and test metrics, AUC and budget.
type Outcome struct {
	HasOP bool       `json:"has_operating_point"`
	Theta report.Num `json:"theta"`
	// Value is the feature's raw value at Theta, in Unit: the rule fires
	// once the value passes it.
	Value    report.Num          `json:"value"`
	Rule     string              `json:"rule"`
	Dev      *report.TaskMetrics `json:"dev"`
	Test     *report.TaskMetrics `json:"test"`
	AUC      report.Num          `json:"auc"`
	InBudget bool                `json:"in_budget"`
}

// WindowOutcome is the outcome under one window and whether it flags the
// feature.
type WindowOutcome struct {
	Outcome
	Shortcut bool `json:"shortcut"`
}

// FeatureWindows are a feature's outcomes under each negative window
// (docs/protocol.md#negative-window).
type FeatureWindows struct {
	Span     WindowOutcome `json:"span"`
	Anchored WindowOutcome `json:"anchored"`
}

// Under returns the outcome under w.
func (f *FeatureWindows) Under(w score.NegativeWindow) *WindowOutcome {
	if w == score.AnchoredWindow {
		return &f.Anchored
	}
	return &f.Span
}

func newOutcome(auc float64) Outcome {
	nan := report.Num(math.NaN())
	return Outcome{Theta: nan, Value: nan, AUC: report.Num(auc)}
}

func (r *Outcome) setOperatingPoint(f Feature, e *score.TaskEvaluation, ci *score.RateCIs, budgetsMS []int) {
	r.HasOP, r.InBudget = true, e.InBudget
	r.Theta, r.Value, r.Rule = report.Num(e.Theta), report.Num(f.Kind.value(e.Theta)), f.RuleText(e.Theta)
	dev, test := report.Metrics(e.Dev, budgetsMS), report.Metrics(e.Test, budgetsMS)
	if ci != nil {
		test = test.WithCI(*ci)
	}
	r.Dev, r.Test = &dev, &test
}

// finish ranks the features as a leaderboard ranks systems (under the
// configured window) and flags the single-channel ones in budget with
// test recall at least flag (0: no flag) under either window.
func (t *TaskAudit) finish(evals []*score.TaskEvaluation, flag float64) {
	standings := score.Leaderboard(evals)
	if len(standings) > 0 && standings[0].HasOperatingPoint {
		t.Best = standings[0].System
	}
	t.Shortcuts = []string{}
	for i := range t.Features {
		f := &t.Features[i]
		for _, w := range score.NegativeWindows {
			o := f.ByWindow.Under(w)
			o.Shortcut = flag > 0 && !f.CrossChannel && o.InBudget && float64(o.Test.Recall) >= flag
			f.Shortcut = f.Shortcut || o.Shortcut
		}
		if f.Shortcut {
			t.Shortcuts = append(t.Shortcuts, f.Name)
		}
	}
}

// Feature returns the task's result for a feature name, or nil.
func (t *TaskAudit) Feature(name string) *FeatureResult {
	for i := range t.Features {
		if t.Features[i].Name == name {
			return &t.Features[i]
		}
	}
	return nil
}

// Line is one feature's result under the configured window in a
// sentence: "overlap run length — fire once an overlapping run lasts
// 0.98 s: test recall 0.977 [0.950, 0.990] (within 250/500/1000 ms
// 0.120/0.710/0.977), p50 620 ms, at fp_rate 0.054".
func (r *FeatureResult) Line() string { return r.Outcome.line(r.Label) }

func (r *Outcome) line(label string) string {
	if !r.HasOP {
		return fmt.Sprintf("%s — no threshold within the dev fp budget", label)
	}
	rec := report.Rate(float64(r.Test.Recall))
	if ci := r.Test.CI95; ci != nil && !math.IsNaN(float64(ci.Recall[0])) {
		rec = fmt.Sprintf("%s [%s, %s]", rec, report.Rate(float64(ci.Recall[0])), report.Rate(float64(ci.Recall[1])))
	}
	if w := r.Test.RecallWithinMS; len(w) > 0 {
		rec += fmt.Sprintf(" (within %s %s)", strings.TrimPrefix(report.RecallWithinHeader(w.Budgets()), "recall ≤ "), w.Cell())
	}
	budget := ""
	if !r.InBudget {
		budget = " (out of budget)"
	}
	return fmt.Sprintf("%s — %s: test recall %s, p50 %s ms, at fp_rate %s%s", label, r.Rule, rec,
		report.Fixed(float64(r.Test.LatencyMS.P50), 0), report.Rate(float64(r.Test.FPRate)), budget)
}
