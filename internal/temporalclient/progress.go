package temporalclient

import (
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/workflows"
)

// agentWorkflowType is the name AgentWorkflow is registered under.
const agentWorkflowType = "AgentWorkflow"

// addAgent fills the progress of the running agent evaluation id with
// what its query answered.
func addAgent(p *workflows.Progress, id string, cp workflows.ChildProgress) {
	for i := range p.Agents {
		if a := &p.Agents[i]; a.WorkflowID == id {
			a.Trials, a.Done, a.EstimateS = cp.Total, cp.Done, cp.Estimate.Seconds()
		}
	}
}

// seatedWorkflowType is the name SeatedWorkflow is registered under.
const seatedWorkflowType = "SeatedWorkflow"

// addSeated fills the progress of the running seated agent id with what
// its query answered.
func addSeated(p *workflows.Progress, id string, cp workflows.ChildProgress) {
	for i := range p.Agents {
		if a := &p.Agents[i]; a.SeatedWorkflowID == id {
			a.Seats, a.SeatsDone, a.SeatEstimateS = cp.Total, cp.Done, cp.Estimate.Seconds()
		}
	}
}

// seatedDone counts a finished seated agent from its result.
func seatedDone(p *workflows.Progress, dc converter.DataConverter, result *commonpb.Payloads) error {
	var out workflows.SeatedOutcome
	if err := dc.FromPayloads(result, &out); err != nil {
		return err
	}
	for i := range p.Agents {
		if a := &p.Agents[i]; a.Name == out.Name {
			a.Seats, a.SeatsDone = out.Seats, out.Seats
		}
	}
	return nil
}

// agentsOf lists a sweep's agents as its progress does before they start.
func agentsOf(s spec.Sweep) []workflows.AgentProgress {
	var out []workflows.AgentProgress
	for _, a := range s.Agents {
		out = append(out, workflows.AgentProgress{Name: a.Name, Concurrency: a.Concurrency, HasTrials: a.HasTrials(), Seated: a.Seated != nil})
	}
	return out
}

// agentDone counts a finished agent evaluation from its result.
func agentDone(p *workflows.Progress, dc converter.DataConverter, result *commonpb.Payloads) error {
	var out workflows.AgentOutcome
	if err := dc.FromPayloads(result, &out); err != nil {
		return err
	}
	for i := range p.Agents {
		if a := &p.Agents[i]; a.Name == out.Name {
			a.Trials, a.Done = out.Trials, out.Trials
		}
	}
	return nil
}
