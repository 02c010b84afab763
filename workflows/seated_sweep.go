package workflows

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
)

// startSeated starts, for each seated agent, a SeatedWorkflow once the
// corpora are planned and, for an agent that also plays trials, once its
// trials are done: both talk to the same endpoint, whose concurrency
// bounds each. The futures are in the spec's agent order, nil for an
// agent that is not seated; each settles with the agent's outcome.
func (s *sweepRun) startSeated(ctx workflow.Context, plans []activities.CorpusPlan, trials []workflow.ChildWorkflowFuture) []workflow.Future {
	agents := s.in.Spec.Agents
	if !slices.ContainsFunc(agents, func(a spec.Agent) bool { return a.Seated != nil }) {
		return nil
	}
	out := make([]workflow.Future, len(agents))
	for i, a := range agents {
		if a.Seated == nil {
			continue
		}
		name := "seated-" + a.Name
		p := &s.progress.Agents[i]
		p.SeatedWorkflowID = s.self + "/" + name
		in := NewSeatedInput(s.in.Spec, a, plans)
		in.Parent = s.self
		f, settle := workflow.NewFuture(ctx)
		out[i] = f
		workflow.Go(ctx, func(ctx workflow.Context) {
			if i < len(trials) && trials[i] != nil {
				_ = trials[i].Get(ctx, nil) // its error is waitAgents' to report
			}
			s.progress.started(p.SeatedWorkflowID, ChildSeated)
			var o SeatedOutcome
			err := workflow.ExecuteChildWorkflow(childOptions(ctx, s.self, name), SeatedWorkflow, in).Get(ctx, &o)
			s.progress.finished(p.SeatedWorkflowID)
			settle.Set(o, err)
		})
	}
	return out
}

// NewSeatedInput is the SeatedWorkflow input of seated agent a of sweep
// s, whose corpora have the plans given (in the spec's order): its
// corpora by reference, in the order it names them, and the sweep's
// protocol and bootstrap.
func NewSeatedInput(s spec.Sweep, a spec.Agent, plans []activities.CorpusPlan) SeatedInput {
	in := SeatedInput{Agent: a, Queues: s.Queues, Params: s.Params(), Resamples: s.Resamples(), Seed: s.Bootstrap.Seed}
	for _, name := range a.Seated.Corpora {
		i := slices.IndexFunc(s.Corpora, func(c spec.Corpus) bool { return c.Name == name })
		in.Corpora = append(in.Corpora, corpusRef(plans[i]))
	}
	return in
}

// waitSeated waits for the seated agents in the spec's order and returns
// their outcomes on each of their corpora.
func (s *sweepRun) waitSeated(ctx workflow.Context, futures []workflow.Future) ([]activities.SeatedOutcome, error) {
	var out []activities.SeatedOutcome
	for i, f := range futures {
		if f == nil {
			continue
		}
		p := &s.progress.Agents[i]
		var o SeatedOutcome
		if err := f.Get(ctx, &o); err != nil {
			return nil, fmt.Errorf("seated agent %s: %w", p.Name, err)
		}
		p.Seats, p.SeatsDone = o.Seats, o.Seats
		out = append(out, o.Corpora...)
	}
	return out, nil
}
