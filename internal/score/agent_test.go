package score

import (
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

// A seated agent that never barged in is scored on INT (recall 0 on its
// positives), where a submission without INT predictions is not
// supported; both carry the agent's operating point.
func TestEvaluateAgentSupportsEveryTask(t *testing.T) {
	t.Parallel()
	gold := &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax, Conversations: []floor.ConversationGold{{
		ID: "c", Duration: 20,
		EOT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 1, Time: 5}}},
		INT: floor.TaskGold{Positives: []floor.Anchor{{Speaker: 2, Time: 10}}},
	}}}
	sub := &Submission{Conversations: []ConversationPredictions{{ID: "c", Speakers: []SpeakerPredictions{
		{EOT: []float64{5.5}, INT: []float64{}}, {EOT: []float64{}, INT: []float64{}}}}}}
	plain, err := EvaluateSubmissions("s", gold, gold, sub, sub, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	agent, err := EvaluateAgent("a", gold, gold, sub, sub, DefaultParams(), "as it behaves")
	if err != nil {
		t.Fatal(err)
	}
	if !plain[1].Unsupported || plain[1].OperatingPoint != "" {
		t.Errorf("a submission without INT predictions: %+v", plain[1])
	}
	for _, e := range agent {
		if e.Unsupported || !e.HasOperatingPoint || e.OperatingPoint != "as it behaves" {
			t.Errorf("agent %s: %+v", e.Task, e)
		}
	}
	if in := agent[1].Test; in.TP != 0 || in.FN != 1 {
		t.Errorf("agent INT: TP %d FN %d, want the positive missed", in.TP, in.FN)
	}
	if eot := agent[0].Test; eot.TP != 1 {
		t.Errorf("agent EOT: TP %d, want 1", eot.TP)
	}
}
