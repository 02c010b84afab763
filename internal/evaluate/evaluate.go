package evaluate

import (
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// Conversation is what an evaluation knows of a conversation besides its
// gold: its split and the attributes results are broken down by.
type Conversation struct {
	ID         string
	Split      string            // dev or test
	Attributes map[string]string // e.g. speakers, type, snr_band
	Anatomy    *floor.Anatomy    // error-anatomy labels (generated corpora)
}

// Corpus is one evaluated corpus: its gold per split and its conversations.
type Corpus struct {
	Name, Hash    string
	Kind          string
	Dev, Test     *floor.GoldSet // Dev may be empty: then a transferred threshold is needed
	Conversations map[string]Conversation
	// Unlabelled counts conversations with audio but no labels: detected,
	// not scored.
	Unlabelled int
	// Timing is the human timing baseline of the labelled conversations.
	Timing floor.Timing
}

// Breakdown attributes reported for every corpus that has them.
var BreakdownAttributes = []string{"speakers", "type", "snr_band"}

// Input is one system on one corpus: its score tracks on both splits.
type Input struct {
	System, SystemHash string
	Corpus             *Corpus
	DevProbs           map[floor.Task]*score.ProbsFile
	TestProbs          map[floor.Task]*score.ProbsFile
	Params             score.Params
	Resamples          int
	Seed               uint64
	// Transferred, per task, is a threshold frozen on another corpus's dev
	// split, used when this corpus has no dev conversations.
	Transferred map[floor.Task]TransferredTheta
}

// TransferredTheta is a threshold taken from another corpus.
type TransferredTheta = score.FrozenTheta

// Evaluation is one system on one corpus, both tasks.
type Evaluation struct {
	System     string       `json:"system"`
	SystemHash string       `json:"system_hash"`
	Corpus     string       `json:"corpus"`
	CorpusHash string       `json:"corpus_hash"`
	Tasks      []TaskResult `json:"tasks"`
	// CorpusInfo describes the corpus; results.json lists it once per
	// corpus (bundle.Results.Corpora), not per evaluation.
	CorpusInfo *CorpusInfo `json:"corpus_info,omitempty"`
}

// CorpusInfo is what a bundle says about one corpus besides the scores:
// its kind, how many conversations were scored per split, how many had no
// labels, and the human timing baseline of its labels.
type CorpusInfo struct {
	Name       string       `json:"name"`
	Kind       string       `json:"kind"`
	Dev        int          `json:"dev_conversations"`
	Test       int          `json:"test_conversations"`
	Unlabelled int          `json:"unlabelled_conversations"`
	Timing     floor.Timing `json:"human_timing"`
	// Audit is the corpus audit (package audit): which trivial rules
	// solve the corpus. Bundles carry it for generated corpora.
	Audit *audit.Report `json:"audit,omitempty"`
}

// OperatingPoints are the thresholds frozen on this evaluation's own dev
// split, per task, to transfer to a corpus without dev data; from names
// where they come from.
func (e *Evaluation) OperatingPoints(from string) map[floor.Task]TransferredTheta {
	out := map[floor.Task]TransferredTheta{}
	for _, t := range e.Tasks {
		if t.HasOP && t.TransferredFrom == "" {
			out[t.Task] = TransferredTheta{Theta: float64(t.Theta), From: from}
		}
	}
	return out
}

// TaskResult is one task of an evaluation.
type TaskResult struct {
	Task        floor.Task `json:"task"`
	NCandidates int        `json:"n_candidates"`
	HasOP       bool       `json:"has_operating_point"`
	Theta       report.Num `json:"theta"`
	// OperatingPoint says how an operating point without a threshold came
	// about: a seated agent's is "as it behaves" (Theta is null then).
	OperatingPoint  string `json:"operating_point,omitempty"`
	TransferredFrom string `json:"transferred_from,omitempty"`
	InBudget        bool   `json:"in_budget"`
	// InBudgetByWindow is the budget rule under each negative window at
	// this operating point; BlindSpot: in budget under span only.
	InBudgetByWindow report.WindowBudgets `json:"in_budget_by_window"`
	BlindSpot        bool                 `json:"blind_spot"`
	Dev              *report.TaskMetrics  `json:"dev"`
	Test             *report.TaskMetrics  `json:"test"`
	Breakdowns       []report.Breakdown   `json:"breakdowns,omitempty"`
	Anatomy          []AnatomyRow         `json:"anatomy,omitempty"`
	// DevCurve is the dev sweep: recall and fp_rate at every candidate
	// threshold, the operating curve the threshold was chosen on.
	DevCurve []CurvePoint `json:"dev_curve,omitempty"`
	// Timelines are a few test events chosen deterministically
	// (timelines.go) with their score tracks, for the timeline figures.
	Timelines []Timeline `json:"timelines,omitempty"`
	// TestByConv are the per-conversation test counts in test gold order,
	// kept for paired comparisons across systems.
	TestByConv []ConvCounts `json:"test_by_conversation,omitempty"`
	// Events are the per-item outcomes on test at the frozen threshold.
	Events []EventRow `json:"events,omitempty"`
	// Predictions are the committed test predictions per conversation.
	Predictions map[string][][]float64 `json:"predictions,omitempty"`
}

// ConvCounts is one conversation's counts: FP and TN under the bundle's
// negative window, and under each window.
type ConvCounts struct {
	ID        string       `json:"conversation_id"`
	TP        int          `json:"tp"`
	FN        int          `json:"fn"`
	FP        int          `json:"fp"`
	TN        int          `json:"tn"`
	Windows   WindowCounts `json:"negatives_by_window"`
	Latencies []float64    `json:"latencies_ms,omitempty"`
}

// WindowCounts are a conversation's negative counts under each window.
type WindowCounts struct {
	Span     NegativeCounts `json:"span"`
	Anchored NegativeCounts `json:"anchored"`
}

// NegativeCounts are the negative spans that fired and did not.
type NegativeCounts struct {
	FP int `json:"fp"`
	TN int `json:"tn"`
}

func newConvCounts(id string, c score.Counts) ConvCounts {
	w := c.Windows
	return ConvCounts{id, c.TP, c.FN, c.FP, c.TN,
		WindowCounts{NegativeCounts{w.Span.FP, w.Span.TN}, NegativeCounts{w.Anchored.FP, w.Anchored.TN}}, c.LatenciesMS}
}

// Counts are c as the scorer counts them.
func (c ConvCounts) Counts() score.Counts {
	w := c.Windows
	return score.Counts{TP: c.TP, FN: c.FN, FP: c.FP, TN: c.TN, LatenciesMS: c.Latencies,
		Windows: score.WindowCounts{Span: score.NegativeCounts{FP: w.Span.FP, TN: w.Span.TN}, Anchored: score.NegativeCounts{FP: w.Anchored.FP, TN: w.Anchored.TN}}}
}

// TaskEvaluation is the part of stored task result t that ranking
// (score.Rank) reads, as system's.
func (t *TaskResult) TaskEvaluation(system string) *score.TaskEvaluation {
	e := &score.TaskEvaluation{System: system, Task: t.Task, Candidates: t.NCandidates, HasOperatingPoint: t.HasOP, InBudget: t.InBudget,
		OperatingPoint: t.OperatingPoint,
		InBudgetUnder:  score.WindowBudgets{Span: t.InBudgetByWindow.Span, Anchored: t.InBudgetByWindow.Anchored}}
	if !t.HasOP {
		return e
	}
	e.Theta = float64(t.Theta)
	for _, c := range t.TestByConv {
		e.TestByConv = append(e.TestByConv, c.Counts())
	}
	e.Test = score.Sum(e.TestByConv)
	if t.Dev != nil {
		w := t.Dev.FPRateByWindow
		e.Dev = score.Counts{TP: t.Dev.TP, FN: t.Dev.FN, FP: t.Dev.FP, TN: t.Dev.TN, Windows: score.WindowCounts{
			Span: score.NegativeCounts{FP: w.Span.FP, TN: w.Span.TN}, Anchored: score.NegativeCounts{FP: w.Anchored.FP, TN: w.Anchored.TN}}}
	}
	return e
}

// AnatomyRow is one cell of the error anatomy (docs/protocol.md#breakdowns-and-error-anatomy).
type AnatomyRow struct {
	Factor string     `json:"factor"`
	Value  string     `json:"value"`
	N      int        `json:"n"`
	Rate   report.Num `json:"rate"` // recall for positives, fp_rate for negatives
	Metric string     `json:"metric"`
}

// EventRow is one gold item's outcome, for the per-event CSV.
type EventRow struct {
	Conversation string     `json:"conversation_id"`
	Speaker      int        `json:"speaker"`
	Kind         string     `json:"kind"` // positive or negative
	Start        float64    `json:"start"`
	End          float64    `json:"end"`
	Outcome      string     `json:"outcome"` // TP, FN, FP, TN
	Prediction   report.Num `json:"prediction"`
	LatencyMS    report.Num `json:"latency_ms"`
}

// System runs the evaluation of docs/protocol.md#sweep-and-operating-point for one system on one corpus: per task,
// the dev sweep and operating point (or the transferred threshold), test at
// the frozen threshold, bootstrap intervals, breakdowns and error anatomy.
func System(in *Input) (*Evaluation, error) {
	c := in.Corpus
	e := &Evaluation{System: in.System, SystemHash: in.SystemHash, Corpus: c.Name, CorpusHash: c.Hash,
		CorpusInfo: &CorpusInfo{Name: c.Name, Kind: c.Kind, Dev: conversations(c.Dev), Test: conversations(c.Test), Unlabelled: c.Unlabelled, Timing: c.Timing}}
	for _, task := range floor.Tasks {
		test := in.TestProbs[task]
		if test == nil {
			continue
		}
		r, err := evaluateTask(in, task)
		if err != nil {
			return nil, fmt.Errorf("%s on %s, %s: %w", in.System, in.Corpus.Name, task, err)
		}
		e.Tasks = append(e.Tasks, *r)
	}
	return e, nil
}

func conversations(g *floor.GoldSet) int {
	if g == nil {
		return 0
	}
	return len(g.Conversations)
}

// evaluateTask evaluates one task with score.EvaluateTask: the dev sweep
// when the corpus has dev conversations and the system dev scores, else
// the threshold transferred for the task, if any.
func evaluateTask(in *Input, task floor.Task) (*TaskResult, error) {
	ti := score.TaskInput{System: in.System, TestGold: in.Corpus.Test, Test: in.TestProbs[task], Explain: true}
	if dev := in.DevProbs[task]; in.Corpus.Dev != nil && len(in.Corpus.Dev.Conversations) > 0 && dev != nil {
		ti.DevGold, ti.Dev = in.Corpus.Dev, dev
	} else if t, ok := in.Transferred[task]; ok {
		ti.Frozen = &t
	}
	e, err := score.EvaluateTask(ti, in.Params)
	if err != nil {
		return nil, err
	}
	r := &TaskResult{Task: task, NCandidates: e.Candidates, HasOP: e.HasOperatingPoint, Theta: report.Num(math.NaN()),
		InBudget: e.InBudget, InBudgetByWindow: report.NewWindowBudgets(e.InBudgetUnder), BlindSpot: e.InBudgetUnder.BlindSpot(),
		DevCurve: devCurve(e.DevCurve)}
	if !e.HasOperatingPoint {
		return r, nil
	}
	r.Theta = report.Num(e.Theta)
	if e.Frozen != nil {
		r.TransferredFrom = e.Frozen.From
	} else {
		dev := report.Metrics(e.Dev, in.Params.LatencyBudgetsMS)
		r.Dev = &dev
	}
	explainTestCounts(in, e, r)
	r.Timelines = timelines(in, e.Task, in.TestProbs[e.Task], e.TestPredictions, e.Theta, r.Events)
	return r, nil
}

// explainTestCounts fills the test metrics, intervals, per-conversation
// counts, breakdowns, anatomy, events and predictions of e's test at its
// operating point.
func explainTestCounts(in *Input, e *score.TaskEvaluation, r *TaskResult) {
	gold := in.Corpus.Test
	r.Predictions = e.TestPredictions
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		c := e.TestByConv[i]
		r.TestByConv = append(r.TestByConv, newConvCounts(g.ID, c))
		r.Events = append(r.Events, eventRows(g.ID, g.Task(e.Task), e.TestOutcomes[i])...)
	}
	budgets := in.Params.LatencyBudgetsMS
	total := report.Metrics(e.Test, budgets)
	if in.Resamples > 0 {
		total = total.WithCI(score.NewResamples(len(e.TestByConv), in.Resamples, in.Seed).CIs(e.TestByConv))
	}
	r.Test = &total
	for _, attr := range BreakdownAttributes {
		values := make([]string, len(gold.Conversations))
		complete := true
		for i, g := range gold.Conversations {
			v, ok := in.Corpus.Conversations[g.ID].Attributes[attr]
			values[i], complete = v, complete && ok
		}
		if complete {
			r.Breakdowns = append(r.Breakdowns, report.NewBreakdown(attr, score.Breakdown(e.TestByConv, values, in.Resamples, in.Seed), budgets))
		}
	}
	r.Anatomy = anatomy(in, e.Task, gold, r.Events)
}

// CurvePoint is one candidate threshold of a dev sweep.
type CurvePoint struct {
	Theta  float64    `json:"theta"`
	Recall report.Num `json:"recall"`
	FPRate report.Num `json:"fp_rate"`
}

func devCurve(points []score.CurvePoint) []CurvePoint {
	out := make([]CurvePoint, len(points))
	for i, p := range points {
		out[i] = CurvePoint{p.Theta, report.Num(p.Recall), report.Num(p.FPRate)}
	}
	return out
}

func eventRows(conv string, g *floor.TaskGold, o score.Outcomes) []EventRow {
	var rows []EventRow
	for i, a := range g.Positives {
		row := EventRow{Conversation: conv, Speaker: a.Speaker, Kind: "positive", Start: a.Time, End: a.Time,
			Outcome: "FN", Prediction: report.Num(math.NaN()), LatencyMS: report.Num(math.NaN())}
		if o.Anchors[i].Matched {
			row.Outcome, row.Prediction, row.LatencyMS = "TP", report.Num(o.Anchors[i].Prediction), report.Num(o.Anchors[i].LatencyMS)
		}
		rows = append(rows, row)
	}
	for i, s := range g.Negatives {
		row := EventRow{Conversation: conv, Speaker: s.Speaker, Kind: "negative", Start: s.Start, End: s.End,
			Outcome: "TN", Prediction: report.Num(math.NaN()), LatencyMS: report.Num(math.NaN())}
		if o.Spans[i].Fired {
			row.Outcome, row.Prediction = "FP", report.Num(o.Spans[i].Prediction)
		}
		rows = append(rows, row)
	}
	return rows
}
