package temporalclient

import (
	"testing"
	"time"

	"go.temporal.io/sdk/converter"

	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/workflows"
)

// A sweep's agents are counted from what their running children answer
// and, once finished, from their results: an agent that plays trials by
// its AgentWorkflow, a seated one by its SeatedWorkflow, each matched to
// its own entry.
func TestAgentProgressFromChildrenAndResults(t *testing.T) {
	s := spec.Sweep{Agents: []spec.Agent{{Name: "a", Concurrency: 2, Repeats: 1}, {Name: "b", Concurrency: 3, Seated: &spec.Seated{}}}}
	p := workflows.Progress{Agents: agentsOf(s)}
	if a, b := p.Agents[0], p.Agents[1]; a.Name != "a" || a.Concurrency != 2 || a.Seated || b.Name != "b" || !b.Seated || b.HasTrials {
		t.Fatalf("agents before they start %+v", p.Agents)
	}
	p.Agents[0].WorkflowID, p.Agents[1].SeatedWorkflowID = "sw/agent-a", "sw/seated-b"
	addAgent(&p, "sw/agent-a", workflows.ChildProgress{Total: 10, Done: 3, Estimate: 90 * time.Second})
	addSeated(&p, "sw/seated-b", workflows.ChildProgress{Total: 4, Done: 1, Estimate: time.Minute})
	if a := p.Agents[0]; a.Trials != 10 || a.Done != 3 || a.EstimateS != 90 || a.Seats != 0 {
		t.Errorf("running agent %+v", a)
	}
	if b := p.Agents[1]; b.Seats != 4 || b.SeatsDone != 1 || b.SeatEstimateS != 60 || b.Trials != 0 {
		t.Errorf("running seated agent %+v", b)
	}
	dc := converter.GetDefaultDataConverter()
	trials, err := dc.ToPayloads(workflows.AgentOutcome{Name: "a", Trials: 12})
	if err != nil {
		t.Fatal(err)
	}
	seats, err := dc.ToPayloads(workflows.SeatedOutcome{Name: "b", Seats: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := agentDone(&p, dc, trials); err != nil {
		t.Fatal(err)
	}
	if err := seatedDone(&p, dc, seats); err != nil {
		t.Fatal(err)
	}
	if a, b := p.Agents[0], p.Agents[1]; a.Trials != 12 || a.Done != 12 || b.Seats != 5 || b.SeatsDone != 5 {
		t.Errorf("finished agents %+v", p.Agents)
	}
	notAnOutcome, err := dc.ToPayloads("not an outcome")
	if err != nil {
		t.Fatal(err)
	}
	if err := agentDone(&p, dc, notAnOutcome); err == nil {
		t.Error("an agent result that does not decode was counted")
	}
}
