package inprocess

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/workflows"
)

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
	err := agent.Retry(ctx, workflows.TrialAttempts, time.Second, activities.IsBadInput, func() error {
		_, err := call(ctx, r, queue, "PlayAgentTrial", r.a.PlayAgentTrial, t)
		return err
	})
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
