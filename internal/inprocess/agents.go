package orchestrate

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/workflows"
)

// Credentials finds an agent's credential by the name a spec's
// credential_env gives: the environment variable of that name, else the
// config file's agent_credentials entry. The error names the variable,
// never a value.
func (c Config) Credentials() func(name string) (proto.Secret, error) {
	file := c.AgentCredentials
	return func(name string) (proto.Secret, error) {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			return proto.Secret(v), nil
		}
		if v := file[name]; v != "" {
			return proto.Secret(v), nil
		}
		return "", fmt.Errorf("environment variable %s is not set, nor agent_credentials.%s in the config file", name, name)
	}
}

// CheckAgentCredentials makes sure every agent's credential can be found
// here before anything starts: one line naming the agent and the variable.
func CheckAgentCredentials(s *spec.Sweep, credentials func(name string) (proto.Secret, error)) error {
	for i, a := range s.Agents {
		if a.CredentialEnv == "" {
			continue
		}
		if _, err := credentials(a.CredentialEnv); err != nil {
			return fmt.Errorf("agents[%d] (%s).credential_env: %w", i, a.Name, err)
		}
	}
	return nil
}

// agents runs every agent evaluation of the sweep as AgentWorkflow does,
// all at once, and returns their stored results' keys in the spec's
// order; an agent that is only seated has none.
func (r *inProcess) agents(ctx context.Context) ([]string, error) {
	params := workflows.AgentScoreParams(r.in.Spec)
	keys := make([]string, len(r.in.Spec.Agents))
	g, gctx := errgroup.WithContext(ctx)
	for i, a := range r.in.Spec.Agents {
		if !a.HasTrials() {
			continue
		}
		g.Go(func() (err error) {
			if keys[i], err = r.agent(gctx, a, params); err != nil {
				return fmt.Errorf("agent %s: %w", a.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(keys, func(k string) bool { return k == "" }), nil
}

// agent is AgentWorkflow in process: the scenario set, every trial (at
// most the agent's concurrency at once), the scores.
func (r *inProcess) agent(ctx context.Context, a spec.Agent, p agent.ScoreParams) (string, error) {
	q := r.in.Spec.Queues
	set, err := call(ctx, r, q.Synth, "PrepareScenarios", r.a.PrepareScenarios, activities.PrepareScenariosInput{Agent: a})
	if err != nil {
		return "", err
	}
	in := workflows.AgentInput{Agent: a, Queues: q, Params: p, Set: &set}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(a.Concurrency)
	for _, t := range in.Trials() {
		g.Go(func() error { return r.trial(gctx, q.CPU, t) })
	}
	if err := g.Wait(); err != nil {
		return "", err
	}
	return call(ctx, r, q.CPU, "ScoreAgent", r.a.ScoreAgent, in.Score())
}

// trial plays one trial with the workflow's retries (TrialAttempts, the
// wait doubling from a second) and records it as failed when every
// attempt fails.
func (r *inProcess) trial(ctx context.Context, queue string, t activities.AgentTrialInput) error {
	wait := time.Second
	var err error
	for attempt := range workflows.TrialAttempts {
		if attempt > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			wait *= 2
		}
		if _, err = call(ctx, r, queue, "PlayAgentTrial", r.a.PlayAgentTrial, t); err == nil || activities.IsBadInput(err) {
			break
		}
	}
	if err == nil || ctx.Err() != nil {
		return ctx.Err()
	}
	_, err = call(ctx, r, queue, "RecordFailedTrial", r.a.RecordFailedTrial, activities.FailedTrialInput{Trial: t, Error: workflows.TrialError(err)})
	return err
}

// startAgents starts the agent evaluations, as the sweep does before its
// corpora, and returns the wait for their keys (which may be called more
// than once).
func (r *inProcess) startAgents(ctx context.Context) func() ([]string, error) {
	if len(r.in.Spec.Agents) == 0 {
		return func() ([]string, error) { return nil, nil }
	}
	var keys []string
	done := make(chan error, 1)
	go func() {
		var err error
		keys, err = r.agents(ctx)
		done <- err
	}()
	return sync.OnceValues(func() ([]string, error) {
		err := <-done
		return keys, err
	})
}

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

// PreflightAgents opens one session with every agent and closes it, so
// that an endpoint that refuses, or a credential it rejects, is one line
// before anything starts. Where the sweep runs elsewhere (submit) the
// workers may reach endpoints this machine cannot, so only the
// quickstart, which runs here, preflights.
func PreflightAgents(ctx context.Context, s *spec.Sweep, credentials func(name string) (proto.Secret, error)) error {
	for i, a := range s.Agents {
		ep := a.ProtoEndpoint()
		if a.CredentialEnv != "" {
			secret, err := credentials(a.CredentialEnv)
			if err != nil {
				return fmt.Errorf("agents[%d] (%s).credential_env: %w", i, a.Name, err)
			}
			ep.Credential = secret
		}
		if err := harness.Preflight(ctx, ep); err != nil {
			return fmt.Errorf("agents[%d] (%s): %w", i, a.Name, err)
		}
	}
	return nil
}
