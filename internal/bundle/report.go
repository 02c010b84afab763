package bundle

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// Report renders report.md: the leaderboards, operating points, breakdown
// tables with 95% intervals, paired comparisons and the error anatomy.
func Report(res *Results, meta Meta) []byte {
	var b bytes.Buffer
	title := meta.Name
	if title == "" {
		title = "sweep"
	}
	fmt.Fprintf(&b, "# floorbench results: %s\n\n", title)
	fmt.Fprintf(&b, "Bundle `%s`, spec `%s`, code `%s`.\n\n", res.BundleID, short(meta.SpecHash), meta.CodeVersion)
	p := res.Protocol
	fmt.Fprintf(&b, "Protocol: windows [t − %g s, t + %g s], refractory %g s, %d quantile candidates, budgets fp_dev ≤ %g and fp_test ≤ %g, %s. ",
		p.TauPre, p.TauMax, p.Refractory, p.Candidates, p.FPBudgetDev, p.FPBudgetTest, windowSentence(p))
	if res.Resamples > 0 {
		fmt.Fprintf(&b, "Intervals: 95%% conversation bootstrap, %d resamples, seed %d.\n\n", res.Resamples, res.Seed)
	} else {
		b.WriteString("No bootstrap intervals.\n\n")
	}
	if len(res.Corpora) > 1 {
		b.WriteString("## Sim-to-real\n\n")
		b.WriteString("Test recall and fp_rate per corpus at each corpus's own dev operating point, or at the threshold transferred from another corpus's dev split where it has no dev data. ")
		b.WriteString("Recording conditions, labels and threshold selection differ between corpora, so the columns show domain sensitivity, not a causal effect.\n\n")
		_ = SimToReal(res).Markdown(&b)
		b.WriteString("\n")
	}
	corpus := ""
	for i := range res.Leaderboards {
		lb := &res.Leaderboards[i]
		if lb.Corpus != corpus {
			corpus = lb.Corpus
			fmt.Fprintf(&b, "## Corpus %s\n\n", corpus)
			corpusInfo(&b, res.Corpora, corpus)
		}
		_ = leaderboardTable(lb).Markdown(&b)
		b.WriteString("\n")
		if len(lb.Paired) > 0 {
			_ = lb.PairedTable().Markdown(&b)
			b.WriteString("\n")
		}
	}
	if figs := Figures(res); len(figs) > 0 {
		b.WriteString("## Figures\n\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "![%s](%s)\n\n", f.Title, FigureFile(f.Name, "svg"))
		}
	}
	if len(res.Evaluations) > 0 {
		b.WriteString("## Operating points\n\n")
		_ = OperatingPointsTable(res.Evaluations).Markdown(&b)
		b.WriteString("\n")
	}
	for _, e := range res.Evaluations {
		for _, t := range e.Tasks {
			for _, bd := range t.Breakdowns {
				_ = breakdownTable(&e, &t, &bd).Markdown(&b)
				b.WriteString("\n")
			}
			if len(t.Anatomy) > 0 {
				_ = anatomyTable(&e, &t).Markdown(&b)
				b.WriteString("\n")
			}
		}
	}
	seatedSection(&b, res.Seated)
	agentSection(&b, res.Agents)
	return b.Bytes()
}

// ReportTables are the tables of report.md in its order, for output as
// CSV or LaTeX: the sim-to-real table, each corpus's human timing, audit
// and leaderboards (with paired comparisons), the operating points, and
// each evaluation's breakdowns and error anatomy. The tables report.md
// shows under a heading of their own carry it as their title.
func ReportTables(res *Results) []*report.Table {
	var out []*report.Table
	if len(res.Corpora) > 1 {
		t := SimToReal(res)
		t.Title = "Sim-to-real"
		out = append(out, t)
	}
	corpus := ""
	for i := range res.Leaderboards {
		lb := &res.Leaderboards[i]
		if lb.Corpus != corpus {
			corpus = lb.Corpus
			out = append(out, corpusTables(res.Corpora, corpus)...)
		}
		out = append(out, leaderboardTable(lb))
		if len(lb.Paired) > 0 {
			out = append(out, lb.PairedTable())
		}
	}
	if len(res.Evaluations) > 0 {
		ops := OperatingPointsTable(res.Evaluations)
		ops.Title = "Operating points"
		out = append(out, ops)
	}
	for _, e := range res.Evaluations {
		for _, t := range e.Tasks {
			for _, bd := range t.Breakdowns {
				out = append(out, breakdownTable(&e, &t, &bd))
			}
			if len(t.Anatomy) > 0 {
				out = append(out, anatomyTable(&e, &t))
			}
		}
	}
	return append(out, AgentTables(res.Agents)...)
}

// leaderboardTable is a leaderboard titled with its task and corpus.
func leaderboardTable(lb *CorpusLeaderboard) *report.Table {
	t := lb.Table()
	t.Title = lb.Title(lb.Corpus)
	return t
}

// corpusTables are a corpus's human timing table and its audit's tables.
func corpusTables(corpora []evaluate.CorpusInfo, name string) []*report.Table {
	var out []*report.Table
	for _, c := range corpora {
		if c.Name != name {
			continue
		}
		out = append(out, timingTable(c))
		if c.Audit != nil {
			for _, t := range c.Audit.Tasks {
				out = append(out, t.Table())
			}
		}
	}
	return out
}

func timingTable(c evaluate.CorpusInfo) *report.Table {
	t := report.TimingTable(c.Timing)
	t.Title = fmt.Sprintf("Human timing on %s: floor-transfer offsets (next speaker's start − current turn's end), %d transfers", c.Name, c.Timing.Transfers)
	return t
}

// breakdownTable is an evaluation's test results for one task grouped by
// one attribute.
func breakdownTable(e *evaluate.Evaluation, t *evaluate.TaskResult, bd *report.Breakdown) *report.Table {
	tb := &report.Table{
		Title:  fmt.Sprintf("%s on %s, %s, by %s (test)", e.System, e.Corpus, strings.ToUpper(string(t.Task)), bd.Attribute),
		Header: []string{bd.Attribute, "n", "recall [95% CI]", withinHeader(bd), "fp_rate [95% CI]", "lat p50 ms"},
	}
	for _, g := range bd.Groups {
		tb.Rows = append(tb.Rows, []string{g.Value, fmt.Sprint(g.Conversations), withInterval(g.Metrics, true), g.Metrics.RecallWithinMS.Cell(),
			withInterval(g.Metrics, false), ms(g.Metrics.LatencyMS.P50)})
	}
	return tb
}

// anatomyTable is an evaluation's error anatomy for one task.
func anatomyTable(e *evaluate.Evaluation, t *evaluate.TaskResult) *report.Table {
	tb := &report.Table{
		Title:  fmt.Sprintf("%s on %s, %s: error anatomy (test)", e.System, e.Corpus, strings.ToUpper(string(t.Task))),
		Header: []string{"factor", "value", "n", "metric", "rate"},
		Labels: 2,
	}
	for _, a := range t.Anatomy {
		tb.Rows = append(tb.Rows, []string{a.Factor, a.Value, fmt.Sprint(a.N), a.Metric, report.Rate(float64(a.Rate))})
	}
	return tb
}

// corpusInfo writes what the bundle knows of a corpus besides its scores:
// conversations scored, unlabelled ones, and the human timing baseline.
func corpusInfo(b *bytes.Buffer, corpora []evaluate.CorpusInfo, name string) {
	for _, c := range corpora {
		if c.Name != name {
			continue
		}
		fmt.Fprintf(b, "Kind %s: %d dev and %d test conversations scored", c.Kind, c.Dev, c.Test)
		if c.Unlabelled > 0 {
			fmt.Fprintf(b, "; %d unlabelled (detected, not scored)", c.Unlabelled)
		}
		b.WriteString(".\n\n")
		_ = timingTable(c).Markdown(b)
		b.WriteString("\n")
		if c.Audit != nil {
			_ = c.Audit.Markdown(b, 3)
			b.WriteString("\n")
		}
	}
}

// SimToReal is the sim-to-real table: per system and corpus, EOT and INT
// test recall and fp_rate with 95% intervals, and where the threshold came
// from.
func SimToReal(res *Results) *report.Table {
	t := &report.Table{
		Header: []string{"system", "corpus", "kind", "threshold", "EOT recall [95% CI]", "EOT fp_rate [95% CI]", "INT recall [95% CI]", "INT fp_rate [95% CI]"},
		Labels: 4,
	}
	kinds := map[string]string{}
	for _, c := range res.Corpora {
		kinds[c.Name] = c.Kind
	}
	evals := slices.Clone(res.Evaluations)
	slices.SortStableFunc(evals, func(a, b evaluate.Evaluation) int { return cmp.Compare(a.System, b.System) })
	for _, e := range evals {
		row := []string{e.System, e.Corpus, kinds[e.Corpus], "", "—", "—", "—", "—"}
		var from []string
		for _, r := range e.Tasks {
			col := 4
			if r.Task == floor.TaskINT {
				col = 6
			}
			if r.Test != nil {
				row[col], row[col+1] = withInterval(*r.Test, true), withInterval(*r.Test, false)
			}
			switch {
			case r.OperatingPoint != "":
				from = append(from, fmt.Sprintf("%s: %s", strings.ToUpper(string(r.Task)), r.OperatingPoint))
			case r.TransferredFrom != "":
				from = append(from, fmt.Sprintf("%s: %s dev", strings.ToUpper(string(r.Task)), r.TransferredFrom))
			case r.HasOP:
				from = append(from, fmt.Sprintf("%s: own dev", strings.ToUpper(string(r.Task))))
			default:
				from = append(from, fmt.Sprintf("%s: none", strings.ToUpper(string(r.Task))))
			}
		}
		row[3] = strings.Join(from, ", ")
		t.Rows = append(t.Rows, row)
	}
	for _, c := range res.Corpora {
		if c.Audit != nil {
			t.Rows = append(t.Rows, auditRow(c))
		}
	}
	return t
}

// auditRow is a corpus's best trivial rule per task (its audit) as a row
// of the sim-to-real table: what a detector must beat on that corpus.
func auditRow(c evaluate.CorpusInfo) []string {
	row := []string{"best trivial rule (audit)", c.Name, c.Kind, "", "—", "—", "—", "—"}
	var rules []string
	for _, t := range c.Audit.Tasks {
		col := 4
		if t.Task == floor.TaskINT {
			col = 6
		}
		f := t.Feature(t.Best)
		if f == nil {
			rules = append(rules, fmt.Sprintf("%s: none", strings.ToUpper(string(t.Task))))
			continue
		}
		rules = append(rules, fmt.Sprintf("%s: %s (θ on %s)", strings.ToUpper(string(t.Task)), f.Rule, c.Audit.Corpus.ThresholdSplit))
		row[col], row[col+1] = withInterval(*f.Test, true), withInterval(*f.Test, false)
	}
	row[3] = strings.Join(rules, "; ")
	return row
}

// OperatingPointsTable lists every evaluation's threshold per task: θ,
// candidates, dev recall and fp_rate, and where θ was frozen.
func OperatingPointsTable(evals []evaluate.Evaluation) *report.Table {
	t := &report.Table{
		Header: []string{"corpus", "system", "task", "θ", "candidates", "dev recall", "dev fp", "frozen from"},
		Labels: 3,
	}
	for _, e := range evals {
		for _, r := range e.Tasks {
			row := []string{e.Corpus, e.System, string(r.Task), "—", fmt.Sprint(r.NCandidates), "—", "—", "—"}
			switch {
			case r.OperatingPoint != "":
				row[3], row[7] = r.OperatingPoint, "no threshold"
			case r.HasOP:
				row[3] = report.Fixed(float64(r.Theta), 4)
				row[7] = "dev"
			default:
				row[7] = "none in budget"
			}
			if r.Dev != nil {
				row[5], row[6] = report.Rate(float64(r.Dev.Recall)), report.Rate(float64(r.Dev.FPRate))
			}
			if r.TransferredFrom != "" {
				row[7] = "transferred from " + r.TransferredFrom
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func withInterval(m report.TaskMetrics, recall bool) string {
	v, iv := m.FPRate, [2]report.Num{report.Num(math.NaN()), report.Num(math.NaN())}
	if recall {
		v = m.Recall
	}
	if m.CI95 != nil {
		iv = m.CI95.FPRate
		if recall {
			iv = m.CI95.Recall
		}
	}
	return report.RateWithCI(float64(v), score.Interval{Lo: float64(iv[0]), Hi: float64(iv[1])})
}

func ms(v report.Num) string { return report.Fixed(float64(v), 0) }

// windowSentence names the negative window ranked under and the latency
// budgets of recall within a budget.
func windowSentence(p score.Params) string {
	s := fmt.Sprintf("negative window %s (leaderboards give test fp_rate under span and anchored, and mark a system in budget under span only as living in the blind spot)", p.NegativeWindow)
	if len(p.LatencyBudgetsMS) > 0 {
		s += ", " + report.RecallWithinHeader(p.LatencyBudgetsMS)
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// withinHeader is the recall-within column's header for a breakdown's
// budgets.
func withinHeader(bd *report.Breakdown) string {
	if len(bd.Groups) == 0 {
		return report.RecallWithinHeader(nil)
	}
	return report.RecallWithinHeader(bd.Groups[0].Metrics.RecallWithinMS.Budgets())
}
