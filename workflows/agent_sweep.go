package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/spec"
)

// startAgents starts one AgentWorkflow per agent of the spec that plays
// trials, all at once and before the corpora: trials take real time and
// depend on nothing else of the sweep. The futures are in the spec's
// agent order, nil for an agent that is only seated.
func (s *sweepRun) startAgents(ctx workflow.Context) []workflow.ChildWorkflowFuture {
	if len(s.in.Spec.Agents) == 0 {
		return nil
	}
	params := AgentScoreParams(s.in.Spec)
	var children []workflow.ChildWorkflowFuture
	for _, a := range s.in.Spec.Agents {
		p := AgentProgress{Name: a.Name, Concurrency: a.Concurrency, HasTrials: a.HasTrials(), Seated: a.Seated != nil}
		var child workflow.ChildWorkflowFuture
		if a.HasTrials() {
			name := "agent-" + a.Name
			p.WorkflowID = s.self + "/" + name
			s.progress.started(p.WorkflowID, ChildAgent)
			child = workflow.ExecuteChildWorkflow(childOptions(ctx, s.self, name), AgentWorkflow,
				AgentInput{Agent: a, Queues: s.in.Spec.Queues, Params: params, Parent: s.self})
		}
		s.progress.Agents = append(s.progress.Agents, p)
		children = append(children, child)
	}
	return children
}

// waitAgents waits for the agent evaluations in the spec's order and
// returns their stored results' keys.
func (s *sweepRun) waitAgents(ctx workflow.Context, children []workflow.ChildWorkflowFuture) ([]string, error) {
	var keys []string
	for i, f := range children {
		if f == nil {
			continue
		}
		p := &s.progress.Agents[i]
		var out AgentOutcome
		if err := f.Get(ctx, &out); err != nil {
			return nil, fmt.Errorf("agent %s: %w", p.Name, err)
		}
		s.progress.finished(p.WorkflowID)
		p.Trials, p.Done = out.Trials, out.Trials
		keys = append(keys, out.Key)
	}
	return keys, nil
}

// AgentScoreParams are the scoring parameters of a sweep's agents: the
// published windows and VAD, intervals from the sweep's bootstrap.
func AgentScoreParams(s spec.Sweep) agent.ScoreParams {
	p := agent.DefaultScoreParams()
	p.Bootstrap, p.Seed = s.Resamples(), s.Bootstrap.Seed
	return p
}
