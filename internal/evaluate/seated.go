package evaluate

import (
	"fmt"
	"math"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// SeatedInput is a seated agent on one corpus (docs/agents.md#seated-agents-in-sweeps):
// its predictions on both splits, read off its audio. It has no
// threshold: OperatingPoint says so.
type SeatedInput struct {
	System, SystemHash string
	Corpus             *Corpus
	// Dev may be nil when the corpus has no dev conversations.
	Dev, Test      *score.Submission
	OperatingPoint string
	Params         score.Params
	Resamples      int
	Seed           uint64
}

// Seated scores a seated agent's predictions by the protocol, as
// a submission's (score.EvaluateAgent: nothing is swept, both tasks are
// supported), and explains its test results as System explains a
// detector's: intervals, per-conversation counts, breakdowns, anatomy,
// events and predictions. It has no dev curve and no score tracks, so no
// timelines.
func Seated(in *SeatedInput) (*Evaluation, error) {
	c := in.Corpus
	dev := in.Dev
	if dev == nil {
		dev = &score.Submission{}
	}
	devGold := c.Dev
	if devGold == nil {
		devGold = &floor.GoldSet{TauPre: c.Test.TauPre, TauMax: c.Test.TauMax}
	}
	tasks, err := score.EvaluateAgent(in.System, devGold, c.Test, dev, in.Test, in.Params, in.OperatingPoint)
	if err != nil {
		return nil, fmt.Errorf("seated agent %s on %s: %w", in.System, c.Name, err)
	}
	e := &Evaluation{System: in.System, SystemHash: in.SystemHash, Corpus: c.Name, CorpusHash: c.Hash,
		CorpusInfo: &CorpusInfo{Name: c.Name, Kind: c.Kind, Dev: conversations(c.Dev), Test: conversations(c.Test), Unlabelled: c.Unlabelled, Timing: c.Timing}}
	explain := &Input{System: in.System, SystemHash: in.SystemHash, Corpus: c, Params: in.Params, Resamples: in.Resamples, Seed: in.Seed}
	for _, te := range tasks {
		r := &TaskResult{Task: te.Task, HasOP: true, Theta: report.Num(math.NaN()), OperatingPoint: in.OperatingPoint,
			InBudget: te.InBudget, InBudgetByWindow: report.NewWindowBudgets(te.InBudgetUnder), BlindSpot: te.InBudgetUnder.BlindSpot()}
		if conversations(c.Dev) > 0 {
			m := report.Metrics(te.Dev, in.Params.LatencyBudgetsMS)
			r.Dev = &m
		}
		te.TestPredictions, te.TestOutcomes = explainSubmission(c.Test, in.Test, te.Task, in.Params)
		explainTestCounts(explain, te, r)
		e.Tasks = append(e.Tasks, *r)
	}
	return e, nil
}

// explainSubmission is every test item's outcome under a submission's
// predictions for task, by the matching that scored it, and the
// predictions by conversation.
func explainSubmission(gold *floor.GoldSet, sub *score.Submission, task floor.Task, p score.Params) (map[string][][]float64, []score.Outcomes) {
	byID := map[string][][]float64{}
	for i := range sub.Conversations {
		cp := &sub.Conversations[i]
		var times [][]float64
		for _, sp := range cp.Speakers {
			if task == floor.TaskINT {
				times = append(times, sp.INT)
			} else {
				times = append(times, sp.EOT)
			}
		}
		byID[cp.ID] = times
	}
	var outcomes []score.Outcomes
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		tg := g.Task(task)
		_, o := score.NewMatcher(tg, p).Explain(byID[g.ID], len(tg.Positives), len(tg.Negatives))
		outcomes = append(outcomes, o)
	}
	return byID, outcomes
}
