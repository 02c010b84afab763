package compare

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// Outcome is the verdict of one system, corpus and task between two
// bundles (docs/protocol.md#paired-comparisons).
type Outcome string

// The outcomes of a paired comparison.
const (
	Identical Outcome = "identical" // same system, corpus and results: nothing resampled
	Unchanged Outcome = "unchanged" // both CIs reach within the tolerance
	Improved  Outcome = "improved"
	Regressed Outcome = "regressed"
	New       Outcome = "new"     // only in the new bundle
	Removed   Outcome = "removed" // only in the old bundle
)

// Outcomes in the order verdicts count and list them.
var Outcomes = []Outcome{Regressed, Removed, Improved, New, Unchanged, Identical}

// DefaultTolerance is the change in recall or fp_rate a whole CI must pass
// before a difference is a regression or an improvement.
const DefaultTolerance = 0.005

// PairedDelta is the paired bootstrap difference new minus old of one rate.
type PairedDelta struct {
	Delta report.Num `json:"delta"`
	Lo    report.Num `json:"ci_lo"`
	Hi    report.Num `json:"ci_hi"`
	P     report.Num `json:"p_value"`
}

// PairedRow is one system, corpus and task of a paired comparison of two
// bundles, a row of verdict.json.
type PairedRow struct {
	Subject
	Verdict Outcome `json:"verdict"`
	// Reason says what decided a regression or an improvement.
	Reason        string `json:"reason,omitempty"`
	Conversations int    `json:"paired_conversations"`
	Rates
	OldInBudget bool         `json:"old_in_budget"`
	NewInBudget bool         `json:"new_in_budget"`
	Recall      *PairedDelta `json:"recall,omitempty"`
	FPRate      *PairedDelta `json:"fp_rate,omitempty"`
	// RecallWithin compares recall within each of the new bundle's
	// latency budgets (docs/protocol.md#recall-within-a-latency-budget).
	RecallWithin []BudgetDelta `json:"recall_within_ms,omitempty"`
}

// BudgetDelta is the paired difference of recall within one latency
// budget, with the recall in each bundle.
type BudgetDelta struct {
	BudgetMS int        `json:"budget_ms"`
	Old      report.Num `json:"old_recall"`
	New      report.Num `json:"new_recall"`
	PairedDelta
}

// Verdict is verdict.json: every system, corpus and task of two bundles
// compared on the conversations both scored.
type Verdict struct {
	Old       string          `json:"old_bundle"`
	New       string          `json:"new_bundle"`
	Tolerance float64         `json:"tolerance"`
	Resamples int             `json:"bootstrap_resamples"`
	Seed      uint64          `json:"bootstrap_seed"`
	Counts    map[Outcome]int `json:"counts"`
	Rows      []PairedRow     `json:"rows"`
}

// PairedOptions set a paired comparison; zero resamples take the new
// bundle's (score.DefaultBootstrap when it has none), and its seed.
type PairedOptions struct {
	Tolerance float64
	Resamples int
	Seed      uint64
}

// Paired compares every system, corpus and task of two bundles with a
// paired conversation bootstrap (docs/protocol.md#paired-comparisons):
// new minus old test recall and fp_rate on the same resamples of the
// conversations both scored. A row regressed when the recall CI lies
// wholly below -tolerance, the fp_rate CI wholly above +tolerance, or the
// system left the budget or lost its operating point; improved
// symmetrically; byte-identical inputs and results are identical without
// resampling.
func Paired(old, cur *bundle.Results, opt PairedOptions) *Verdict {
	v := &Verdict{Old: old.BundleID, New: cur.BundleID, Tolerance: opt.Tolerance, Resamples: opt.Resamples, Seed: opt.Seed, Counts: map[Outcome]int{}}
	if v.Resamples == 0 {
		v.Resamples, v.Seed = cur.Resamples, cur.Seed
		if v.Resamples == 0 {
			v.Resamples = score.DefaultBootstrap
		}
	}
	for _, row := range rows(old, cur) {
		r := PairedRow{Subject: row.Subject, Rates: row.rates()}
		if row.old != nil {
			r.OldInBudget = row.old.InBudget
		}
		if row.cur != nil {
			r.NewInBudget = row.cur.InBudget
		}
		switch {
		case row.old == nil:
			r.Verdict = New
		case row.cur == nil:
			r.Verdict = Removed
		case row.old.identical(*row.cur):
			r.Verdict = Identical
		default:
			v.judge(&r, row.old.TaskResult, row.cur.TaskResult, cur.Protocol.LatencyBudgetsMS)
		}
		v.Counts[r.Verdict]++
		v.Rows = append(v.Rows, r)
	}
	return v
}

// Regressions counts the rows that regressed or were removed.
func (v *Verdict) Regressions() int { return v.Counts[Regressed] + v.Counts[Removed] }

// judge bootstraps the paired differences of one row (recall within each
// of budgetsMS included) and decides it.
func (v *Verdict) judge(r *PairedRow, a, b evaluate.TaskResult, budgetsMS []int) {
	olds, news := pairConversations(a.TestByConv, b.TestByConv)
	r.Conversations = len(olds)
	var up, down []string
	if len(olds) > 0 {
		res := score.NewResamples(len(olds), v.Resamples, v.Seed)
		recall, fp := res.Paired(news, olds)
		r.Recall, r.FPRate = pairedDelta(recall), pairedDelta(fp)
		tol := v.Tolerance
		decide := func(d score.Difference, what string) {
			switch {
			case d.CI.Hi < -tol:
				down = append(down, what+" CI below -tolerance")
			case d.CI.Lo > tol:
				up = append(up, what+" CI above +tolerance")
			}
		}
		decide(recall, "recall")
		oldSum, newSum := score.Sum(olds), score.Sum(news)
		for _, ms := range budgetsMS {
			d := res.PairedWithin(news, olds, ms)
			r.RecallWithin = append(r.RecallWithin, BudgetDelta{ms, report.Num(oldSum.RecallWithin(ms)), report.Num(newSum.RecallWithin(ms)), *pairedDelta(d)})
			decide(d, fmt.Sprintf("recall within %d ms", ms))
		}
		switch {
		case fp.CI.Lo > tol:
			down = append(down, "fp_rate CI above +tolerance")
		case fp.CI.Hi < -tol:
			up = append(up, "fp_rate CI below -tolerance")
		}
	}
	switch {
	case a.InBudget && !b.InBudget:
		down = append(down, "left the budget")
	case !a.InBudget && b.InBudget:
		up = append(up, "entered the budget")
	}
	if a.HasOP && !b.HasOP {
		down = append(down, "lost its operating point")
	}
	switch {
	case len(down) > 0:
		r.Verdict, r.Reason = Regressed, joinReasons(down)
	case len(up) > 0:
		r.Verdict, r.Reason = Improved, joinReasons(up)
	default:
		r.Verdict = Unchanged
	}
}

func joinReasons(rs []string) string {
	var buf bytes.Buffer
	for i, s := range rs {
		if i > 0 {
			buf.WriteString("; ")
		}
		buf.WriteString(s)
	}
	return buf.String()
}

// pairConversations are the counts of the conversations both results
// scored, in the order of their ids.
func pairConversations(old, cur []evaluate.ConvCounts) (olds, news []score.Counts) {
	byID := make(map[string]evaluate.ConvCounts, len(cur))
	for _, c := range cur {
		byID[c.ID] = c
	}
	sorted := slices.Clone(old)
	slices.SortFunc(sorted, func(a, b evaluate.ConvCounts) int { return cmp.Compare(a.ID, b.ID) })
	for _, c := range sorted {
		if d, ok := byID[c.ID]; ok {
			olds, news = append(olds, c.Counts()), append(news, d.Counts())
		}
	}
	return olds, news
}

func pairedDelta(d score.Difference) *PairedDelta {
	return &PairedDelta{Delta: report.Num(d.Delta), Lo: report.Num(d.CI.Lo), Hi: report.Num(d.CI.Hi), P: report.Num(d.P)}
}

// SharedConversations counts the test conversations scored in both
// bundles on a corpus of the same name: zero means a paired comparison
// has nothing to resample.
func SharedConversations(old, cur *bundle.Results) int {
	ids := func(r *bundle.Results) map[string]bool {
		m := map[string]bool{}
		for _, e := range r.Evaluations {
			for _, t := range e.Tasks {
				for _, c := range t.TestByConv {
					m[e.Corpus+"\x00"+c.ID] = true
				}
			}
		}
		return m
	}
	a, b := ids(old), ids(cur)
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// SharedCorpora lists the corpus names both bundles evaluated.
func SharedCorpora(old, cur *bundle.Results) []string {
	var out []string
	for _, e := range old.Evaluations {
		if slices.Contains(out, e.Corpus) {
			continue
		}
		if slices.ContainsFunc(cur.Evaluations, func(f evaluate.Evaluation) bool { return f.Corpus == e.Corpus }) {
			out = append(out, e.Corpus)
		}
	}
	slices.Sort(out)
	return out
}

// Markdown is verdict.md: the counts, then a table of what moved (every
// row not identical or unchanged) with its deltas and CIs, then the rest.
func (v *Verdict) Markdown() []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Verdict: %s → %s\n\n", orNone(v.Old), v.New)
	fmt.Fprintf(&buf, "%s. Paired conversation bootstrap, %d resamples, seed %d; tolerance %s.\n\n",
		v.Summary(), v.Resamples, v.Seed, report.Fixed(v.Tolerance, 3))
	moved, still := v.table(true), v.table(false)
	if len(moved.Rows) > 0 {
		buf.WriteString("## What moved\n\n")
		_ = moved.Markdown(&buf)
		buf.WriteString("\n")
	} else {
		buf.WriteString("Nothing moved.\n\n")
	}
	if len(still.Rows) > 0 {
		buf.WriteString("## Unchanged\n\n")
		_ = still.Markdown(&buf)
	}
	return buf.Bytes()
}

// Summary is the counts in one line, e.g. "1 regressed, 3 identical".
func (v *Verdict) Summary() string {
	var buf bytes.Buffer
	for _, o := range Outcomes {
		if n := v.Counts[o]; n > 0 {
			if buf.Len() > 0 {
				buf.WriteString(", ")
			}
			fmt.Fprintf(&buf, "%d %s", n, o)
		}
	}
	if buf.Len() == 0 {
		return "nothing compared"
	}
	return buf.String()
}

// Table is the verdict's rows as a table, regressions first.
func (v *Verdict) Table() *report.Table {
	t := v.table(true)
	t.Rows = append(t.Rows, v.table(false).Rows...)
	return t
}

func (v *Verdict) table(moved bool) *report.Table {
	t := &report.Table{Header: []string{"verdict", "corpus", "system", "task", "why", "recall", "Δ recall [95% CI]", "p",
		"Δ recall ≤ ms [95% CI]", "fp_rate", "Δ fp_rate [95% CI]", "p"}, Labels: 5}
	for _, o := range Outcomes {
		if (o == Unchanged || o == Identical) == moved {
			continue
		}
		for _, r := range v.Rows {
			if r.Verdict != o {
				continue
			}
			t.Rows = append(t.Rows, []string{string(r.Verdict), r.Corpus, r.System, string(r.Task), orDash(r.Reason),
				change(r.OldRecall, r.NewRecall), deltaCI(r.Recall), pOf(r.Recall), withinCell(r.RecallWithin),
				change(r.OldFPRate, r.NewFPRate), deltaCI(r.FPRate), pOf(r.FPRate)})
		}
	}
	return t
}

// withinCell is the recall-within differences, one budget after the
// other: "500: +0.100 [+0.050, +0.150]; 1000: 0.000 [0.000, 0.000]".
func withinCell(ds []BudgetDelta) string {
	if len(ds) == 0 {
		return report.Undefined
	}
	parts := make([]string, len(ds))
	for i := range ds {
		parts[i] = fmt.Sprintf("%d: %s", ds[i].BudgetMS, deltaCI(&ds[i].PairedDelta))
	}
	return strings.Join(parts, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func change(old, cur report.Num) string {
	return report.Rate(float64(old)) + " → " + report.Rate(float64(cur))
}

func deltaCI(d *PairedDelta) string {
	if d == nil {
		return report.Undefined
	}
	if math.IsNaN(float64(d.Lo)) {
		return report.Signed(float64(d.Delta), 3)
	}
	return report.Signed(float64(d.Delta), 3) + " [" + report.Signed(float64(d.Lo), 3) + ", " + report.Signed(float64(d.Hi), 3) + "]"
}

func pOf(d *PairedDelta) string {
	if d == nil {
		return report.Undefined
	}
	return report.PValue(float64(d.P))
}
