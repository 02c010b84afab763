package audit

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
)

// Table is one task's features as a table.
func (t *TaskAudit) Table() *report.Table {
	tb := &report.Table{Title: strings.ToUpper(string(t.Task)) + " trivial rules", Labels: 2,
		Header: []string{"feature", "rule", "θ", "dev recall", "dev fp", "test recall [95% CI]", "test fp [95% CI]", "AUC", "p50 ms", "budget"}}
	for _, f := range t.Features {
		label := f.Label
		if f.Shortcut {
			label += " (SHORTCUT)"
		}
		if !f.HasOP {
			tb.Rows = append(tb.Rows, []string{label, "no threshold within the dev budget", "—", "—", "—", "—", "—", num(f.AUC), "—", "none"})
			continue
		}
		budget := "in"
		if !f.InBudget {
			budget = "out"
		}
		ci := f.Test.CI95
		tb.Rows = append(tb.Rows, []string{label, f.Rule, report.Fixed(float64(f.Theta), 3),
			num(f.Dev.Recall), num(f.Dev.FPRate), withCI(f.Test.Recall, ci, true), withCI(f.Test.FPRate, ci, false),
			num(f.AUC), latency(f.Test.LatencyMS.P50), budget})
	}
	return tb
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
		for _, name := range t.Shortcuts {
			out = append(out, fmt.Sprintf("SHORTCUT %s: %s", t.Task, t.Feature(name).Line()))
		}
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
			out = append(out, fmt.Sprintf("%s: no shortcut (no feature reaches in-budget test recall %g)", t.Task, *flag))
		}
		best := "none: no feature has a threshold within the dev budget"
		if t.Best != "" {
			best = t.Feature(t.Best).Line()
		}
		out = append(out, fmt.Sprintf("best %s feature: %s", t.Task, best))
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
		"Word counts come from the labels (oracle transcript), not the audio.",
		p.Protocol.Candidates, p.Protocol.Refractory, p.Resamples, p.Seed, p.FrameRate)
}
