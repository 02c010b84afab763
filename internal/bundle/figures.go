package bundle

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/store"
)

// Figures are the numbers each figure of a bundle draws
// (docs/formats.md#bundle-files), in the order report.md shows them: per task
// the dev operating curves, recall by speaker count, recall and fp_rate by
// interaction type and the latency distributions; the error anatomy; the
// sim-to-real comparison when there are several corpora; and the
// timelines of the best-ranked system per corpus and task. A figure with
// nothing to draw is left out.
func Figures(res *Results) []figure.Figure {
	styles := systemStyles(res)
	var out []figure.Figure
	add := func(f figure.Figure) {
		if len(f.Panels) > 0 {
			out = append(out, f)
		}
	}
	for _, task := range floor.Tasks {
		add(operatingCurves(res, task, styles))
		add(recallBySpeakers(res, task, styles))
		add(byInteractionType(res, task, styles))
		add(latencies(res, task, styles))
	}
	add(errorAnatomy(res, styles))
	add(simToReal(res, styles))
	for _, f := range bestTimelines(res) {
		add(f)
	}
	return out
}

// FiguresFolder is the folder of a bundle that holds its figures.
const FiguresFolder = "figures/"

// FigureFile is where figure name is stored in a bundle.
func FigureFile(name, format string) string { return FiguresFolder + name + "." + format }

// RenderFigures draws every figure of res in format (svg or png).
func RenderFigures(res *Results, format string) ([]File, error) {
	var files []File
	for _, f := range Figures(res) {
		data, err := figure.Render(f, format)
		if err != nil {
			return nil, err
		}
		files = append(files, File{FigureFile(f.Name, format), data})
	}
	return files, nil
}

// systemStyles gives every system its colour: its place among the
// bundle's systems by name.
func systemStyles(res *Results) map[string]int {
	var names []string
	for _, e := range res.Evaluations {
		if !slices.Contains(names, e.System) {
			names = append(names, e.System)
		}
	}
	slices.Sort(names)
	out := map[string]int{}
	for i, n := range names {
		out[n] = i
	}
	return out
}

// evaluations of one corpus, by system name.
func corpusEvaluations(res *Results, corpus string) []evaluate.Evaluation {
	var out []evaluate.Evaluation
	for _, e := range res.Evaluations {
		if e.Corpus == corpus {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b evaluate.Evaluation) int { return cmp.Compare(a.System, b.System) })
	return out
}

// scored says whether some evaluation of res scores task: a bundle of
// EOT-only systems draws no INT panel.
func scored(res *Results, task floor.Task) bool {
	return slices.ContainsFunc(res.Evaluations, func(e evaluate.Evaluation) bool { return taskOf(e, task) != nil })
}

func taskOf(e evaluate.Evaluation, task floor.Task) *evaluate.TaskResult {
	for i := range e.Tasks {
		if e.Tasks[i].Task == task {
			return &e.Tasks[i]
		}
	}
	return nil
}

func upper(t floor.Task) string { return strings.ToUpper(string(t)) }

var unit = &[2]float64{0, 1}

func operatingCurves(res *Results, task floor.Task, styles map[string]int) figure.Figure {
	f := figure.Figure{Name: "operating-curve-" + string(task), Title: upper(task) + " dev operating curves: recall against fp_rate over the candidate thresholds", Columns: 2}
	for _, c := range res.Corpora {
		p := figure.Panel{Title: c.Name, XLabel: "dev fp_rate", YLabel: "dev recall", XRange: unit, YRange: unit,
			Rules: []figure.Rule{{Label: fmt.Sprintf("budget %g", res.Protocol.FPBudgetDev), Axis: "x", Value: res.Protocol.FPBudgetDev}}}
		for _, e := range corpusEvaluations(res, c.Name) {
			t := taskOf(e, task)
			if t == nil || len(t.DevCurve) == 0 {
				continue
			}
			l := figure.Line{Label: e.System, Style: styles[e.System]}
			for _, pt := range t.DevCurve {
				if r, fp := float64(pt.Recall), float64(pt.FPRate); !math.IsNaN(r) && !math.IsNaN(fp) {
					l.X, l.Y = append(l.X, fp), append(l.Y, r)
				}
			}
			p.Lines = append(p.Lines, l)
			if t.Dev != nil {
				p.Points = append(p.Points, figure.Points{Label: "chosen θ", Style: styles[e.System], Shape: "triangle",
					X: []float64{float64(t.Dev.FPRate)}, Y: []float64{float64(t.Dev.Recall)}})
			}
		}
		if len(p.Lines) > 0 {
			f.Panels = append(f.Panels, p)
		}
	}
	return f
}

// dodge spreads n systems' markers around a category's position.
func dodge(i, n int) float64 {
	if n <= 1 {
		return 0
	}
	return -0.3 + 0.6*float64(i)/float64(n-1)
}

// breakdownIntervals draws one metric of a breakdown per system with its
// 95% interval; marked says which groups are out of the test budget.
func breakdownIntervals(evals []evaluate.Evaluation, task floor.Task, attr string, categories []string, recall bool, budget float64, styles map[string]int) []figure.Intervals {
	var out []figure.Intervals
	for i, e := range evals {
		t := taskOf(e, task)
		if t == nil {
			continue
		}
		for _, b := range t.Breakdowns {
			if b.Attribute != attr {
				continue
			}
			iv := figure.Intervals{Label: e.System, Style: styles[e.System]}
			for _, g := range b.Groups {
				x := float64(slices.Index(categories, g.Value)) + dodge(i, len(evals))
				v, lo, hi := metricWithCI(g.Metrics, recall)
				iv.X, iv.Y, iv.Lo, iv.Hi = append(iv.X, x), append(iv.Y, v), append(iv.Lo, lo), append(iv.Hi, hi)
				iv.Marked = append(iv.Marked, budget > 0 && float64(g.Metrics.FPRate) > budget)
			}
			out = append(out, iv)
		}
	}
	return out
}

func metricWithCI(m report.TaskMetrics, recall bool) (v, lo, hi figure.Num) {
	nan := figure.Num(math.NaN())
	v, lo, hi = figure.Num(m.FPRate), nan, nan
	if recall {
		v = figure.Num(m.Recall)
	}
	if m.CI95 != nil {
		iv := m.CI95.FPRate
		if recall {
			iv = m.CI95.Recall
		}
		lo, hi = figure.Num(iv[0]), figure.Num(iv[1])
	}
	return v, lo, hi
}

// groupValues are the values of a breakdown attribute over the systems on
// a corpus, numerically sorted where they are numbers.
func groupValues(evals []evaluate.Evaluation, task floor.Task, attr string) []string {
	var vals []string
	for _, e := range evals {
		if t := taskOf(e, task); t != nil {
			for _, b := range t.Breakdowns {
				if b.Attribute == attr {
					for _, g := range b.Groups {
						if !slices.Contains(vals, g.Value) {
							vals = append(vals, g.Value)
						}
					}
				}
			}
		}
	}
	slices.SortFunc(vals, func(a, b string) int {
		x, errA := strconv.ParseFloat(a, 64)
		y, errB := strconv.ParseFloat(b, 64)
		if errA == nil && errB == nil {
			return cmp.Compare(x, y)
		}
		return cmp.Compare(a, b)
	})
	return vals
}

func recallBySpeakers(res *Results, task floor.Task, styles map[string]int) figure.Figure {
	f := figure.Figure{Name: "recall-by-speakers-" + string(task), Title: upper(task) + " test recall by speaker count, 95% intervals", Columns: 2}
	for _, c := range res.Corpora {
		evals := corpusEvaluations(res, c.Name)
		cats := groupValues(evals, task, "speakers")
		if len(cats) == 0 {
			continue
		}
		f.Panels = append(f.Panels, figure.Panel{Title: c.Name, XLabel: "speakers", YLabel: "recall", YRange: unit, Categories: cats,
			Intervals: breakdownIntervals(evals, task, "speakers", cats, true, 0, styles)})
		f.PanelWidth = widthFor(f.PanelWidth, cats, 0.8)
	}
	return f
}

func byInteractionType(res *Results, task floor.Task, styles map[string]int) figure.Figure {
	budget := res.Protocol.FPBudgetTest
	f := figure.Figure{Name: "by-type-" + string(task), Title: upper(task) + " test recall and fp_rate by interaction type (× out of the test budget)", Columns: 2}
	for _, c := range res.Corpora {
		evals := corpusEvaluations(res, c.Name)
		cats := groupValues(evals, task, "type")
		if len(cats) == 0 {
			continue
		}
		f.Panels = append(f.Panels,
			figure.Panel{Title: c.Name + ": recall", XLabel: "interaction type", YLabel: "recall", YRange: unit, Categories: cats,
				Intervals: breakdownIntervals(evals, task, "type", cats, true, budget, styles)},
			figure.Panel{Title: c.Name + ": fp_rate", XLabel: "interaction type", YLabel: "fp_rate", YRange: unit, Categories: cats,
				Intervals: breakdownIntervals(evals, task, "type", cats, false, budget, styles),
				Rules:     []figure.Rule{{Label: fmt.Sprintf("budget %g", budget), Axis: "y", Value: budget}}})
		f.PanelWidth = widthFor(f.PanelWidth, cats, 1.1)
	}
	return f
}

func latencies(res *Results, task floor.Task, styles map[string]int) figure.Figure {
	f := figure.Figure{Name: "latency-" + string(task), Title: upper(task) + " test latency of matched events (prediction − anchor, ms)", Columns: 2}
	for _, c := range res.Corpora {
		var p figure.Panel
		p.Title, p.YLabel = c.Name, "latency (ms)"
		for _, e := range corpusEvaluations(res, c.Name) {
			t := taskOf(e, task)
			if t == nil {
				continue
			}
			var values []float64
			for _, cc := range t.TestByConv {
				values = append(values, cc.Latencies...)
			}
			if len(values) == 0 {
				continue
			}
			p.Boxes = append(p.Boxes, figure.Box{Label: e.System, Style: styles[e.System], X: float64(len(p.Categories)), Values: values})
			p.Categories = append(p.Categories, e.System)
		}
		// The human baseline: how late people take the floor after a
		// turn ends, from the corpus's own labels.
		if h := c.Timing.All; task == floor.TaskEOT && h.N > 0 {
			p.Rules = append(p.Rules, figure.Rule{Label: "human median", Axis: "y", Value: 1000 * h.Median},
				figure.Rule{Label: "human p25", Axis: "y", Value: 1000 * h.P25}, figure.Rule{Label: "human p75", Axis: "y", Value: 1000 * h.P75})
		}
		if len(p.Boxes) > 0 {
			f.Panels = append(f.Panels, p)
			// Room under each box for its system's name.
			f.PanelWidth = widthFor(f.PanelWidth, p.Categories, 1.1)
		}
	}
	return f
}

func errorAnatomy(res *Results, styles map[string]int) figure.Figure {
	f := figure.Figure{Name: "error-anatomy", Title: "Error anatomy (test): recall by claim length, fp_rate by hold and negative kind", Columns: 1}
	for _, c := range res.Corpora {
		evals := corpusEvaluations(res, c.Name)
		for _, task := range floor.Tasks {
			var cats []string
			for _, e := range evals {
				if t := taskOf(e, task); t != nil {
					for _, a := range t.Anatomy {
						if k := a.Factor + " " + a.Value; !slices.Contains(cats, k) {
							cats = append(cats, k)
						}
					}
				}
			}
			if len(cats) == 0 {
				continue
			}
			p := figure.Panel{Title: c.Name + ", " + upper(task), YLabel: "rate", YRange: unit, Categories: cats}
			for i, e := range evals {
				t := taskOf(e, task)
				if t == nil || len(t.Anatomy) == 0 {
					continue
				}
				iv := figure.Intervals{Label: e.System, Style: styles[e.System]}
				for _, a := range t.Anatomy {
					iv.X = append(iv.X, float64(slices.Index(cats, a.Factor+" "+a.Value))+dodge(i, len(evals)))
					iv.Y, iv.Lo, iv.Hi = append(iv.Y, figure.Num(a.Rate)), append(iv.Lo, figure.Num(math.NaN())), append(iv.Hi, figure.Num(math.NaN()))
				}
				p.Intervals = append(p.Intervals, iv)
			}
			f.Panels = append(f.Panels, p)
			f.PanelWidth = widthFor(f.PanelWidth, cats, 1.4)
		}
	}
	return f
}

// widthFor is a panel width (inches) that leaves each category perInch
// for its label and markers, at least the default 4.5 and at least was.
func widthFor(was float64, categories []string, perCategory float64) float64 {
	return max(was, 4.5, perCategory*float64(len(categories)))
}

func simToReal(res *Results, styles map[string]int) figure.Figure {
	f := figure.Figure{Name: "sim-to-real", Title: "Sim-to-real: test recall and fp_rate per corpus, 95% intervals (× out of budget)", Columns: 2}
	if len(res.Corpora) < 2 {
		return f
	}
	var cats []string
	for _, c := range res.Corpora {
		cats = append(cats, c.Name)
	}
	systems := make([]string, 0, len(styles))
	for s := range styles {
		systems = append(systems, s)
	}
	slices.Sort(systems)
	for _, task := range floor.Tasks {
		if !scored(res, task) {
			continue // every system scores the other task alone
		}
		for _, recall := range []bool{true, false} {
			metric := "fp_rate"
			if recall {
				metric = "recall"
			}
			p := figure.Panel{Title: upper(task) + " " + metric, XLabel: "corpus", YLabel: metric, YRange: unit, Categories: cats}
			f.PanelWidth = widthFor(f.PanelWidth, cats, 1.2)
			for i, s := range systems {
				iv := figure.Intervals{Label: s, Style: styles[s]}
				for _, e := range res.Evaluations {
					t := taskOf(e, task)
					if e.System != s || t == nil || t.Test == nil {
						continue
					}
					v, lo, hi := metricWithCI(*t.Test, recall)
					iv.X = append(iv.X, float64(slices.Index(cats, e.Corpus))+dodge(i, len(systems)))
					iv.Y, iv.Lo, iv.Hi, iv.Marked = append(iv.Y, v), append(iv.Lo, lo), append(iv.Hi, hi), append(iv.Marked, !t.InBudget)
				}
				if len(iv.X) > 0 {
					p.Intervals = append(p.Intervals, iv)
				}
			}
			if !recall {
				p.Rules = []figure.Rule{{Label: fmt.Sprintf("budget %g", res.Protocol.FPBudgetTest), Axis: "y", Value: res.Protocol.FPBudgetTest}}
			}
			f.Panels = append(f.Panels, p)
		}
	}
	return f
}

// bestTimelines are the timelines of each corpus and task's first-ranked
// system (the leaderboard's first row).
func bestTimelines(res *Results) []figure.Figure {
	var out []figure.Figure
	for _, lb := range res.Leaderboards {
		if len(lb.Rows) == 0 {
			continue
		}
		system := lb.Rows[0].System
		for _, e := range res.Evaluations {
			t := taskOf(e, lb.Task)
			if e.Corpus != lb.Corpus || e.System != system || t == nil {
				continue
			}
			for i, tl := range t.Timelines {
				name := fmt.Sprintf("timeline-%s-%s-%d", store.SafeName(lb.Corpus), lb.Task, i+1)
				out = append(out, TimelineFigure(name, system, lb.Corpus, lb.Task, tl))
			}
		}
	}
	return out
}

// TimelineFigure draws a timeline: one panel per speaker channel with the
// waveform (when known), score track, θ, anchors, negative spans, excluded
// intervals and predictions.
func TimelineFigure(name, system, corpus string, task floor.Task, tl evaluate.Timeline) figure.Figure {
	ev := tl.Event
	title := fmt.Sprintf("%s on %s, %s: %s (%s, speaker %d, %s at %.2f s)", system, corpus, upper(task), tl.Reason, tl.Conversation, ev.Speaker, ev.Kind, ev.Start)
	f := figure.Figure{Name: name, Title: title, Columns: 1, PanelWidth: 9, PanelHeight: 1.6}
	speakers := len(tl.Scores)
	for _, it := range append(slices.Clone(tl.Gold), tl.Predictions...) {
		speakers = max(speakers, it.Speaker)
	}
	yr := &[2]float64{0, 1.05}
	// Waveforms are scaled together so the loudest sample in the window
	// fills the band around 0.5; quiet channels stay quiet.
	peak := 0.0
	for _, env := range tl.Waveform {
		for i := range env.Lo {
			peak = max(peak, -env.Lo[i], env.Hi[i])
		}
	}
	gain := 0.45 / max(peak, 1e-9)
	for k := 1; k <= speakers; k++ {
		p := figure.Panel{Title: fmt.Sprintf("speaker %d", k), YLabel: "score", XRange: &[2]float64{tl.Start, tl.End}, YRange: yr}
		if k == speakers {
			p.XLabel = "time (s)"
		}
		if k <= len(tl.Waveform) {
			env := tl.Waveform[k-1]
			a := figure.Area{Label: "waveform"}
			for i := range env.Lo {
				a.X = append(a.X, tl.Start+float64(i)*tl.Step)
				a.Lo, a.Hi = append(a.Lo, 0.5+gain*env.Lo[i]), append(a.Hi, 0.5+gain*env.Hi[i])
			}
			if len(a.X) > 1 {
				p.Areas = append(p.Areas, a)
			}
		}
		for _, it := range tl.Gold {
			if it.Speaker != k {
				continue
			}
			if it.Kind == "positive" {
				p.Rules = append(p.Rules, figure.Rule{Label: "anchor", Axis: "x", Value: it.Start})
			} else {
				p.Bands = append(p.Bands, figure.Band{Kind: it.Kind, Start: it.Start, End: it.End})
			}
		}
		if k <= len(tl.Scores) && len(tl.Scores[k-1]) > 1 {
			l := figure.Line{Label: "score", Style: 0}
			for i, v := range tl.Scores[k-1] {
				l.X, l.Y = append(l.X, tl.Start+float64(i)*tl.Step), append(l.Y, v)
			}
			p.Lines = append(p.Lines, l)
		}
		pr := figure.Points{Label: "prediction", Style: 2, Shape: "triangle"}
		for _, it := range tl.Predictions {
			if it.Speaker == k {
				pr.X, pr.Y = append(pr.X, it.Start), append(pr.Y, tl.Theta)
			}
		}
		if len(pr.X) > 0 {
			p.Points = append(p.Points, pr)
		}
		p.Rules = append(p.Rules, figure.Rule{Label: "θ", Axis: "y", Value: tl.Theta})
		f.Panels = append(f.Panels, p)
	}
	return f
}
