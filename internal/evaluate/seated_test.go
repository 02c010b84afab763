package evaluate_test

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// atAnchors is a submission that predicts every anchor of gold at its
// time: a perfect seated agent.
func atAnchors(gold *floor.GoldSet) *score.Submission {
	sub := &score.Submission{}
	for i := range gold.Conversations {
		g := &gold.Conversations[i]
		n, _ := g.Speakers(gold.Dyadic())
		c := score.ConversationPredictions{ID: g.ID, Speakers: make([]score.SpeakerPredictions, n)}
		for k := range c.Speakers {
			c.Speakers[k] = score.SpeakerPredictions{EOT: []float64{}, INT: []float64{}}
		}
		for _, a := range g.EOT.Positives {
			c.Speakers[a.Speaker-1].EOT = append(c.Speakers[a.Speaker-1].EOT, a.Time)
		}
		for _, a := range g.INT.Positives {
			c.Speakers[a.Speaker-1].INT = append(c.Speakers[a.Speaker-1].INT, a.Time)
		}
		sub.Conversations = append(sub.Conversations, c)
	}
	return sub
}

// A seated agent that speaks at every anchor scores recall 1 with no
// false positive on both tasks and splits, at the operating point "as it
// behaves" (no threshold), with its events and per-conversation counts;
// in a bundle it is ranked on both leaderboards beside the systems.
func TestSeatedAgentIsScoredAndRanked(t *testing.T) {
	c, tracks := bundlefixture.Make(bundlefixture.Mini())
	p := score.DefaultParams()
	e, err := evaluate.Seated(&evaluate.SeatedInput{System: "perfect", SystemHash: "agent-hash", Corpus: c,
		Dev: atAnchors(c.Dev), Test: atAnchors(c.Test), OperatingPoint: "as it behaves", Params: p, Resamples: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Tasks) != 2 {
		t.Fatalf("%d tasks", len(e.Tasks))
	}
	for _, r := range e.Tasks {
		if !r.HasOP || r.OperatingPoint != "as it behaves" || !math.IsNaN(float64(r.Theta)) || r.Dev == nil || r.Test == nil {
			t.Fatalf("%s: %+v", r.Task, r)
		}
		if r.Test.Recall != 1 || r.Test.FP != 0 || r.Dev.Recall != 1 || r.Dev.FP != 0 || !r.InBudget {
			t.Errorf("%s: test recall %v fp %d, dev recall %v fp %d, in budget %v", r.Task, r.Test.Recall, r.Test.FP, r.Dev.Recall, r.Dev.FP, r.InBudget)
		}
		if len(r.TestByConv) != len(c.Test.Conversations) || len(r.Events) == 0 || r.Test.CI95 == nil {
			t.Errorf("%s: %d conversations, %d events, intervals %v", r.Task, len(r.TestByConv), len(r.Events), r.Test.CI95)
		}
	}
	sys, err := evaluate.System(&evaluate.Input{System: "early", SystemHash: "early-hash", Corpus: c, DevProbs: tracks["early"].Dev,
		TestProbs: tracks["early"].Test, Params: p, Resamples: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := bundle.Build(bundle.Meta{Name: "seated", Protocol: p, Resamples: 100, Seed: 1},
		bundle.Parts{Evaluations: []evaluate.Evaluation{*sys, *e}, Seated: []bundle.SeatedRun{{Agent: "perfect", Corpus: c.Name, Seats: 3, Failed: []bundle.SeatFailure{}}}}, "2026-12-03T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	for _, lb := range res.Leaderboards {
		found := map[string]string{}
		for _, r := range lb.Rows {
			found[r.System] = r.OperatingPoint
		}
		if op, ok := found["perfect"]; !ok || op != "as it behaves" || len(found) != 2 {
			t.Errorf("%s leaderboard of %s: %v", lb.Task, lb.Corpus, found)
		}
	}
}
