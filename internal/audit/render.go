package audit

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// Table is one task's features as a table: one row a feature and
// negative window, each window with its own operating point.
func (t *TaskAudit) Table() *report.Table {
	tb := &report.Table{Title: strings.ToUpper(string(t.Task)) + " trivial rules", Labels: 3,
		Header: []string{"feature", "window", "rule", "θ", "dev recall", "dev fp", "test recall [95% CI]", "recall ≤ ms",
			"test fp [95% CI]", "AUC", "p50 ms", "budget"}}
	for _, f := range t.Features {
		for _, w := range score.NegativeWindows {
			tb.Rows = append(tb.Rows, f.row(w))
		}
	}
	return tb
}

// row is a feature's row under window w.
func (f *FeatureResult) row(w score.NegativeWindow) []string {
	o := f.ByWindow.Under(w)
	label := f.Label
	switch {
	case o.Shortcut:
		label += " (SHORTCUT)"
	case f.CrossChannel:
		label += " (cross-channel, not flagged)"
	}
	if !o.HasOP {
		return []string{label, string(w), "no threshold within the dev budget", "—", "—", "—", "—", "—", "—", num(o.AUC), "—", "none"}
	}
	budget := "in"
	if !o.InBudget {
		budget = "out"
	}
	ci := o.Test.CI95
	return []string{label, string(w), o.Rule, report.Fixed(float64(o.Theta), 3),
		num(o.Dev.Recall), num(o.Dev.FPRate), withCI(o.Test.Recall, ci, true), withinCell(o.Test.RecallWithinMS),
		withCI(o.Test.FPRate, ci, false), num(o.AUC), latency(o.Test.LatencyMS.P50), budget}
}

// withinCell is recall within each budget: "250: 0.120, 500: 0.710".
func withinCell(r report.RecallWithin) string {
	if len(r) == 0 {
		return report.Undefined
	}
	parts := make([]string, len(r))
	for i, b := range r {
		parts[i] = fmt.Sprintf("%d: %s", b.BudgetMS, num(b.Recall))
	}
	return strings.Join(parts, ", ")
}

func num(v report.Num) string { return report.Rate(float64(v)) }

func latency(v report.Num) string { return report.Fixed(float64(v), 0) }

func withCI(v report.Num, ci *report.CI95, recall bool) string {
	if ci == nil {
		return num(v)
	}
	iv := ci.FPRate
	if recall {
		iv = ci.Recall
	}
	if math.IsNaN(float64(iv[0])) {
		return num(v)
	}
	return fmt.Sprintf("%s [%s, %s]", num(v), num(iv[0]), num(iv[1]))
}

// Summary is the sentences a reader needs: what was read, how thresholds
// were picked, every shortcut flagged, and the best feature of each task.
func (r *Report) Summary() []string {
	c, p := r.Corpus, r.Params
	out := []string{fmt.Sprintf("corpus audit: %s corpus, %d dev and %d test labelled conversations (%d unlabelled skipped)",
		c.Kind, c.Dev, c.Test, c.Unlabelled)}
	if c.ThresholdSplit == "dev" {
		out = append(out, fmt.Sprintf("thresholds picked on dev (fp_rate <= %g), frozen on %s; in budget: fp_dev <= %g and fp_%s <= %g",
			p.Protocol.FPBudgetDev, p.Split, p.Protocol.FPBudgetDev, p.Split, p.Protocol.FPBudgetTest))
	} else {
		out = append(out, fmt.Sprintf("no labelled dev split: thresholds picked on %s itself (fp_rate <= %g), so the %s rates are optimistic",
			c.ThresholdSplit, p.Protocol.FPBudgetDev, p.Split))
	}
	if !c.WordCounts {
		out = append(out, "no word counts in the labels: the oracle-transcript word feature is skipped")
	}
	for _, t := range r.Tasks {
		out = append(out, t.flagLines()...)
	}
	for _, t := range r.Tasks {
		flag := p.EOTFlagRecall
		if t.Task == floor.TaskINT {
			flag = p.INTFlagRecall
		}
		switch {
		case flag == nil:
			out = append(out, fmt.Sprintf("%s: not flagged (flag off)", t.Task))
		case len(t.Shortcuts) == 0:
			out = append(out, fmt.Sprintf("%s: no shortcut (no feature reaches in-budget test recall %g under either negative window)", t.Task, *flag))
		}
		best := "none: no feature has a threshold within the dev budget"
		if t.Best != "" {
			best = t.Feature(t.Best).Line()
		}
		out = append(out, fmt.Sprintf("best %s feature (%s window): %s", t.Task, p.Protocol.NegativeWindow, best))
	}
	return out
}

// flagLines are a line per shortcut and window that flags it, a line
// per feature that is a shortcut under span only (it lives in the blind
// spot of docs/protocol.md#negative-window), and a line per cross-channel
// feature and window: reported with its latency, never flagged.
func (t *TaskAudit) flagLines() []string {
	var out []string
	for _, f := range t.Features {
		for _, w := range score.NegativeWindows {
			o := f.ByWindow.Under(w)
			switch {
			case o.Shortcut:
				out = append(out, fmt.Sprintf("SHORTCUT %s (%s window): %s", t.Task, w, o.line(f.Label)))
			case f.CrossChannel:
				out = append(out, fmt.Sprintf("reported, not flagged (cross-channel) %s (%s window): %s", t.Task, w, o.line(f.Label)))
			}
		}
		if f.ByWindow.Span.Shortcut && !f.ByWindow.Anchored.Shortcut {
			out = append(out, fmt.Sprintf("BLIND SPOT %s: %s is a shortcut under the span window only: its false alarms fall just after negative spans end", t.Task, f.Label))
		}
	}
	return out
}

// Text writes the audit as plain text: the summary, then a table per task.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	for _, line := range r.Summary() {
		b.WriteString(line + "\n")
	}
	for _, t := range r.Tasks {
		b.WriteString("\n")
		if err := t.Table().Text(&b); err != nil {
			return err
		}
	}
	b.WriteString("\n" + r.Caption() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes the audit as Markdown; level is the heading level of its
// title (2 for a document of its own, deeper inside a report).
func (r *Report) Markdown(w io.Writer, level int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s Corpus audit: trivial rules\n\n", strings.Repeat("#", level))
	for _, line := range r.Summary() {
		b.WriteString("- " + line + "\n")
	}
	for _, t := range r.Tasks {
		b.WriteString("\n")
		if err := t.Table().Markdown(&b); err != nil {
			return err
		}
	}
	b.WriteString("\n" + r.Caption() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Caption says how the features were scored and where word counts come
// from, under the tables.
func (r *Report) Caption() string {
	p := r.Params
	return fmt.Sprintf("Each feature is a causal score track per speaker (frame i reads audio up to its end) scored by the protocol: "+
		"%d quantiles ∪ 0.01..0.99 as candidates, commit rule with %g s refractory, %d conversation-bootstrap resamples (seed %d); "+
		"AUC is the area under test recall against fp_rate over the candidates. Speech is the rms baseline's voice activity at %g fps. "+
		"Word counts come from the labels (oracle transcript), not the audio. "+
		"Each rule is run under both negative windows, each picking its own threshold: span charges a false alarm in [start − %g s, end], "+
		"anchored in [start − %g s, max(end, start + %g s)]; a rule is a shortcut under either. "+
		"Recall ≤ L ms counts only the detections at most L ms after their anchor.",
		p.Protocol.Candidates, p.Protocol.Refractory, p.Resamples, p.Seed, p.FrameRate, p.Protocol.TauPre, p.Protocol.TauPre, p.Protocol.TauMax)
}
