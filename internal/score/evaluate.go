package score

import (
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/floor"
)

// ConversationCounts are one conversation's counts for both tasks.
type ConversationCounts struct {
	ID  string
	EOT Counts
	INT Counts
}

// Task returns the counts of task t.
func (c *ConversationCounts) Task(t floor.Task) *Counts {
	if t == floor.TaskINT {
		return &c.INT
	}
	return &c.EOT
}

// ScoreSubmission checks sub against gold and scores every conversation, in
// gold order.
func ScoreSubmission(gold *floor.GoldSet, sub *Submission, p Params) ([]ConversationCounts, error) {
	if err := CheckSubmission(sub, gold); err != nil {
		return nil, err
	}
	byID := make(map[string]*ConversationPredictions, len(sub.Conversations))
	for i := range sub.Conversations {
		byID[sub.Conversations[i].ID] = &sub.Conversations[i]
	}
	out := make([]ConversationCounts, len(gold.Conversations))
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		c := byID[g.ID]
		out[i] = ConversationCounts{
			ID:  g.ID,
			EOT: ScoreTask(&g.EOT, c.Task(floor.TaskEOT), p),
			INT: ScoreTask(&g.INT, c.Task(floor.TaskINT), p),
		}
	}
	return out, nil
}

// ScoreAtThreshold commits every track of probs at theta and scores each
// gold conversation for probs' task, in gold order.
func ScoreAtThreshold(gold *floor.GoldSet, probs *ProbsFile, theta float64, p Params) ([]Counts, error) {
	var e TaskEvaluation
	if err := e.scoreTest(gold, probs, theta, p, false); err != nil {
		return nil, err
	}
	return e.TestByConv, nil
}

// Sum adds up per-conversation counts.
func Sum(rows []Counts) Counts {
	var total Counts
	for _, r := range rows {
		total.Add(r)
	}
	return total
}

// FrozenTheta is a threshold frozen on another corpus's dev split, for a
// corpus without dev conversations; From names where it comes from.
type FrozenTheta struct {
	Theta float64 `json:"theta"`
	From  string  `json:"from"`
}

// TaskInput is one system on one task: the dev probabilities to sweep, or a
// threshold frozen elsewhere, and the test probabilities to score at the
// frozen threshold.
type TaskInput struct {
	System            string
	DevGold, TestGold *floor.GoldSet
	Dev, Test         *ProbsFile
	// Frozen, when set, is the threshold instead of a dev sweep: Dev and
	// DevGold are not read.
	Frozen *FrozenTheta
	// Explain keeps the committed test predictions and every test item's
	// outcome (TestPredictions, TestOutcomes).
	Explain bool
}

// TaskEvaluation is one system on one task under docs/protocol.md#sweep-and-operating-point: the dev sweep,
// its operating point, and test scored at the frozen threshold.
type TaskEvaluation struct {
	System     string
	Task       floor.Task
	Candidates int
	// HasOperatingPoint is false when no candidate meets the dev budget;
	// then Theta, Dev and Test are empty. A submission's times are its
	// operating point, whatever their dev fp_rate: Theta is NaN and
	// Candidates 0.
	HasOperatingPoint bool
	// OperatingPoint says how a submission's operating point came about
	// when it is not a threshold: a seated agent's is "as it behaves"
	// (docs/agents.md#seated-agents). Empty for a swept system.
	OperatingPoint string
	// Unsupported is true when a submission makes no prediction at all
	// for the task on test: TurnBench reports such a task as not
	// supported rather than as recall 0. Nothing else is set then.
	Unsupported bool
	// Frozen is the threshold taken from another corpus when there was
	// no dev sweep; Dev is empty then.
	Frozen     *FrozenTheta
	Theta      float64
	Dev        Counts
	Test       Counts
	TestByConv []Counts // in test gold order
	// InBudget is the budget rule under the configured negative window;
	// InBudgetUnder is the rule under each window at the same operating
	// point.
	InBudget      bool
	InBudgetUnder WindowBudgets
	// DevCurve is the dev sweep's operating curve, one point a candidate.
	DevCurve []CurvePoint
	// With TaskInput.Explain: the committed test predictions by
	// conversation, and each test conversation's item outcomes in test
	// gold order.
	TestPredictions map[string][][]float64
	TestOutcomes    []Outcomes
}

// CurvePoint is one candidate threshold of a dev sweep.
type CurvePoint struct {
	Theta, Recall, FPRate float64
}

// InBudget is the budget rule of docs/protocol.md#budgets-and-the-leaderboard:
// an operating point with a dev fp_rate within the dev budget (an undefined
// one, no dev negatives, is not) and a test fp_rate within the test budget
// (an undefined one is). A threshold frozen on another corpus has no dev
// fp_rate of its own to check.
func (p Params) InBudget(e *TaskEvaluation) bool {
	if !e.HasOperatingPoint {
		return false
	}
	devOK := e.Frozen != nil || e.Dev.FPRate() <= p.FPBudgetDev
	fp := e.Test.FPRate()
	return devOK && (math.IsNaN(fp) || fp <= p.FPBudgetTest)
}

// WindowBudgets are the budget rule's verdicts under each negative window.
type WindowBudgets struct{ Span, Anchored bool }

// BlindSpot reports an operating point in budget under the span window
// and not under the anchored one: a system whose false alarms fall just
// after negative spans end, where the papers' rule does not look
// (docs/protocol.md#negative-window).
func (b WindowBudgets) BlindSpot() bool { return b.Span && !b.Anchored }

// InBudgetUnder applies the budget rule to e's dev and test counts under
// each negative window.
func (p Params) InBudgetUnder(e *TaskEvaluation) WindowBudgets {
	under := func(w NegativeWindow) bool {
		v := *e
		v.Dev, v.Test = e.Dev.UnderWindow(w), e.Test.UnderWindow(w)
		return p.InBudget(&v)
	}
	return WindowBudgets{Span: under(SpanWindow), Anchored: under(AnchoredWindow)}
}

// setBudgets sets InBudget and InBudgetUnder.
func (e *TaskEvaluation) setBudgets(p Params) {
	e.InBudget, e.InBudgetUnder = p.InBudget(e), p.InBudgetUnder(e)
}

// DevSweep is a dev split swept over its candidate thresholds
// (docs/protocol.md#candidate-thresholds), with its operating point.
type DevSweep struct {
	Rows []SweepRow // one a candidate, by ascending threshold
	// OP is the index of the operating point in Rows; -1 when no
	// candidate is within the dev budget.
	OP int
}

// SweepDev sweeps probs over the candidate thresholds of its own scores and
// picks the operating point within the dev budget.
func SweepDev(gold *floor.GoldSet, probs *ProbsFile, p Params) (*DevSweep, error) {
	return sweepDev(gold, probs, p, false)
}

// SweepDevTakingTracks sweeps as SweepDev does and takes probs' score
// tracks: it drops each (probs keeps its conversations, without tracks)
// once the track's edge rows exist, so that a process sweeping millions of
// frames holds them or their edge rows, not both at once.
func SweepDevTakingTracks(gold *floor.GoldSet, probs *ProbsFile, p Params) (*DevSweep, error) {
	return sweepDev(gold, probs, p, true)
}

func sweepDev(gold *floor.GoldSet, probs *ProbsFile, p Params, take bool) (*DevSweep, error) {
	var tracks [][]float64
	for _, c := range probs.Conversations {
		tracks = append(tracks, c.Speakers...)
	}
	thetas := Candidates(tracks, p.Candidates)
	tracks = nil
	rows, err := sweep(gold, probs, thetas, p, take)
	if err != nil {
		return nil, err
	}
	s := &DevSweep{Rows: rows, OP: -1}
	if op, ok := OperatingPoint(rows, p.FPBudgetDev); ok {
		s.OP = op
	}
	return s, nil
}

// Curve is the sweep's operating curve: recall and fp_rate per candidate.
func (s *DevSweep) Curve() []CurvePoint {
	out := make([]CurvePoint, len(s.Rows))
	for i, r := range s.Rows {
		out[i] = CurvePoint{r.Theta, r.Counts.Recall(), r.Counts.FPRate()}
	}
	return out
}

// Under returns the sweep as it reads under negative window w: every
// row's counts under w and the operating point within budget under w.
func (s *DevSweep) Under(w NegativeWindow, budget float64) *DevSweep {
	out := &DevSweep{Rows: make([]SweepRow, len(s.Rows)), OP: -1}
	for i, r := range s.Rows {
		out.Rows[i] = SweepRow{r.Theta, r.Counts.UnderWindow(w), r.Backchannel.UnderWindow(w)}
	}
	if op, ok := OperatingPoint(out.Rows, budget); ok {
		out.OP = op
	}
	return out
}

// EvaluateTask runs docs/protocol.md#sweep-and-operating-point for one
// system on one task: the dev sweep and its operating point (or the frozen
// threshold), test committed at that threshold and scored, and the budget
// rule. Without dev probabilities or a frozen threshold the task has no
// operating point.
func EvaluateTask(in TaskInput, p Params) (*TaskEvaluation, error) {
	out, err := evaluateTask(in, p, []NegativeWindow{p.NegativeWindow})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// EvaluateTaskWindows is EvaluateTask under each negative window, in
// NegativeWindows order, on one shared dev sweep: each window picks its
// own operating point and budget verdict.
func EvaluateTaskWindows(in TaskInput, p Params) ([]*TaskEvaluation, error) {
	return evaluateTask(in, p, NegativeWindows)
}

func evaluateTask(in TaskInput, p Params, windows []NegativeWindow) ([]*TaskEvaluation, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	var sweep *DevSweep
	if in.Frozen == nil && in.Dev != nil {
		if in.Dev.Task != in.Test.Task {
			return nil, fmt.Errorf("dev probabilities are for %s, test ones for %s", in.Dev.Task, in.Test.Task)
		}
		var err error
		if sweep, err = SweepDev(in.DevGold, in.Dev, p); err != nil {
			return nil, fmt.Errorf("dev: %w", err)
		}
	}
	var out []*TaskEvaluation
	for _, w := range windows {
		pw := p
		pw.NegativeWindow = w
		e, err := evaluateAt(in, pw, sweep)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// evaluateAt finishes an evaluation under p's negative window: the
// operating point of sweep (or the frozen threshold), test at it, budgets.
func evaluateAt(in TaskInput, p Params, sweep *DevSweep) (*TaskEvaluation, error) {
	e := &TaskEvaluation{System: in.System, Task: in.Test.Task}
	switch {
	case in.Frozen != nil:
		e.Frozen, e.Theta = in.Frozen, in.Frozen.Theta
	case sweep != nil:
		s := sweep.Under(p.NegativeWindow, p.FPBudgetDev)
		e.Candidates, e.DevCurve = len(s.Rows), s.Curve()
		if s.OP < 0 {
			return e, nil
		}
		e.Theta, e.Dev = s.Rows[s.OP].Theta, s.Rows[s.OP].Counts
	default:
		return e, nil
	}
	e.HasOperatingPoint = true
	if err := e.scoreTest(in.TestGold, in.Test, e.Theta, p, in.Explain); err != nil {
		return nil, fmt.Errorf("test: %w", err)
	}
	e.setBudgets(p)
	return e, nil
}

// scoreTest commits every track of probs at theta and scores each test
// gold conversation, in gold order; with explain it keeps the committed
// predictions and every item's outcome.
func (e *TaskEvaluation) scoreTest(gold *floor.GoldSet, probs *ProbsFile, theta float64, p Params, explain bool) error {
	if err := CheckProbs(probs, gold); err != nil {
		return err
	}
	committed := CommitAll(probs, theta, p.Refractory)
	e.TestByConv = make([]Counts, len(gold.Conversations))
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		tg := g.Task(probs.Task)
		m := NewMatcher(tg, p)
		if !explain {
			e.TestByConv[i] = m.Score(committed[g.ID])
			continue
		}
		var o Outcomes
		e.TestByConv[i], o = m.Explain(committed[g.ID], len(tg.Positives), len(tg.Negatives))
		e.TestOutcomes = append(e.TestOutcomes, o)
	}
	if explain {
		e.TestPredictions = committed
	}
	e.Test = Sum(e.TestByConv)
	return nil
}

// Evaluate sweeps dev, picks the operating point within the dev budget,
// freezes its threshold and scores test with it.
func Evaluate(system string, devGold, testGold *floor.GoldSet, dev, test *ProbsFile, p Params) (*TaskEvaluation, error) {
	e, err := EvaluateTask(TaskInput{System: system, DevGold: devGold, TestGold: testGold, Dev: dev, Test: test}, p)
	if err != nil {
		return nil, fmt.Errorf("system %s: %w", system, err)
	}
	return e, nil
}

// EvaluateSubmissions scores a system's dev and test submissions on both
// tasks, in floor.Tasks order. The submitted times are the operating point:
// nothing is swept, and the dev fp_rate is checked against the dev budget
// as for a swept system. A task the test submission makes no prediction
// for is Unsupported.
func EvaluateSubmissions(system string, devGold, testGold *floor.GoldSet, dev, test *Submission, p Params) ([]*TaskEvaluation, error) {
	return evaluateSubmissions(system, devGold, testGold, dev, test, p, "")
}

// EvaluateAgent scores a seated agent's submissions
// (docs/agents.md#seated-agents) as EvaluateSubmissions does, with its
// operating point described as operatingPoint on both tasks. Every task
// is supported: an agent's onsets are its EOT predictions and its
// barge-ins its INT ones, so an agent that never barged in has INT recall
// 0, not "not supported".
func EvaluateAgent(system string, devGold, testGold *floor.GoldSet, dev, test *Submission, p Params, operatingPoint string) ([]*TaskEvaluation, error) {
	return evaluateSubmissions(system, devGold, testGold, dev, test, p, operatingPoint)
}

// evaluateSubmissions scores submissions; a non-empty operatingPoint
// marks a seated agent's.
func evaluateSubmissions(system string, devGold, testGold *floor.GoldSet, dev, test *Submission, p Params, operatingPoint string) ([]*TaskEvaluation, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	devRows, err := ScoreSubmission(devGold, dev, p)
	if err != nil {
		return nil, fmt.Errorf("system %s dev: %w", system, err)
	}
	testRows, err := ScoreSubmission(testGold, test, p)
	if err != nil {
		return nil, fmt.Errorf("system %s test: %w", system, err)
	}
	var out []*TaskEvaluation
	for _, t := range floor.Tasks {
		e := &TaskEvaluation{System: system, Task: t, Theta: math.NaN(), OperatingPoint: operatingPoint}
		out = append(out, e)
		if operatingPoint == "" && test.Predictions(t) == 0 {
			e.Unsupported = true
			continue
		}
		e.HasOperatingPoint = true
		var devByConv []Counts
		for i := range devRows {
			devByConv = append(devByConv, *devRows[i].Task(t))
		}
		for i := range testRows {
			e.TestByConv = append(e.TestByConv, *testRows[i].Task(t))
		}
		e.Dev, e.Test = Sum(devByConv), Sum(e.TestByConv)
		e.setBudgets(p)
	}
	return out, nil
}
