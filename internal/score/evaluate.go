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
			EOT: ScoreTask(&g.EOT, c.Task(floor.TaskEOT), p.TauPre, p.TauMax),
			INT: ScoreTask(&g.INT, c.Task(floor.TaskINT), p.TauPre, p.TauMax),
		}
	}
	return out, nil
}

// ScoreAtThreshold commits every track of probs at theta and scores each
// gold conversation for probs' task, in gold order.
func ScoreAtThreshold(gold *floor.GoldSet, probs *ProbsFile, theta float64, p Params) ([]Counts, error) {
	if err := CheckProbs(probs, gold); err != nil {
		return nil, err
	}
	committed := CommitAll(probs, theta, p.Refractory)
	out := make([]Counts, len(gold.Conversations))
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		out[i] = ScoreTask(g.Task(probs.Task), committed[g.ID], p.TauPre, p.TauMax)
	}
	return out, nil
}

// Sum adds up per-conversation counts.
func Sum(rows []Counts) Counts {
	var total Counts
	for _, r := range rows {
		total.Add(r)
	}
	return total
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
	// Unsupported is true when a submission makes no prediction at all
	// for the task on test: TurnBench reports such a task as not
	// supported rather than as recall 0. Nothing else is set then.
	Unsupported bool
	Theta       float64
	Dev         Counts
	Test        Counts
	TestByConv  []Counts // in test gold order
	InBudget    bool
}

// InBudget is the budget rule of docs/protocol.md#budgets-and-the-leaderboard:
// a dev fp_rate within the dev budget (DevWithinBudget) and a test fp_rate
// within the test budget (TestWithinBudget).
func (p Params) InBudget(dev, test Counts) bool {
	return p.DevWithinBudget(dev.FPRate()) && p.TestWithinBudget(test.FPRate())
}

// DevWithinBudget reports whether a dev fp_rate is within the dev budget;
// an undefined one (no dev negatives) is not.
func (p Params) DevWithinBudget(fpRate float64) bool { return fpRate <= p.FPBudgetDev }

// TestWithinBudget reports whether a test fp_rate is within the test
// budget; an undefined one (no test negatives) is.
func (p Params) TestWithinBudget(fpRate float64) bool {
	return math.IsNaN(fpRate) || fpRate <= p.FPBudgetTest
}

// Evaluate sweeps dev, picks the operating point within the dev budget,
// freezes its threshold and scores test with it.
func Evaluate(system string, devGold, testGold *floor.GoldSet, dev, test *ProbsFile, p Params) (*TaskEvaluation, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if dev.Task != test.Task {
		return nil, fmt.Errorf("system %s: dev probabilities are for %s, test ones for %s", system, dev.Task, test.Task)
	}
	var tracks [][]float64
	for _, c := range dev.Conversations {
		tracks = append(tracks, c.Speakers...)
	}
	thetas := Candidates(tracks, p.Candidates)
	rows, err := Sweep(devGold, dev, thetas, p)
	if err != nil {
		return nil, fmt.Errorf("system %s dev: %w", system, err)
	}
	e := &TaskEvaluation{System: system, Task: dev.Task, Candidates: len(thetas)}
	op, ok := OperatingPoint(rows, p.FPBudgetDev)
	if !ok {
		return e, nil
	}
	e.HasOperatingPoint = true
	e.Theta = rows[op].Theta
	e.Dev = rows[op].Counts
	e.TestByConv, err = ScoreAtThreshold(testGold, test, e.Theta, p)
	if err != nil {
		return nil, fmt.Errorf("system %s test: %w", system, err)
	}
	e.Test = Sum(e.TestByConv)
	e.InBudget = p.InBudget(e.Dev, e.Test)
	return e, nil
}

// EvaluateSubmissions scores a system's dev and test submissions on both
// tasks, in floor.Tasks order. The submitted times are the operating point:
// nothing is swept, and the dev fp_rate is checked against the dev budget
// as for a swept system. A task the test submission makes no prediction
// for is Unsupported.
func EvaluateSubmissions(system string, devGold, testGold *floor.GoldSet, dev, test *Submission, p Params) ([]*TaskEvaluation, error) {
	if err := p.Validate(); err != nil {
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
		e := &TaskEvaluation{System: system, Task: t, Theta: math.NaN()}
		out = append(out, e)
		if test.Predictions(t) == 0 {
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
		e.InBudget = p.InBudget(e.Dev, e.Test)
	}
	return out, nil
}
