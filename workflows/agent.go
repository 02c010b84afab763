package workflows

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/spec"
)

// AgentInput asks for one agent's evaluation on its scenario set.
type AgentInput struct {
	Agent  spec.Agent
	Queues spec.Queues
	Params agent.ScoreParams
	Parent string
	// Set is the planned set, once planned; Next is the first trial not
	// yet played and Outcome what the trials before it did (a run
	// continued as new carries all three).
	Set     *activities.ScenarioSetPlan
	Next    int
	Outcome AgentOutcome
}

// AgentOutcome is what an agent's evaluation did: its stored results'
// key and how many trials were played, found stored, or failed for good.
type AgentOutcome struct {
	Name                            string
	Key                             string
	Trials, Played, Resumed, Failed int
}

// Trial timing of the agent evaluations (docs/agents.md#in-sweeps).
const (
	// TrialAttempts is how often a trial's session is tried: a dropped
	// connection or a restarted agent is retried, an agent that fails
	// every time is recorded as failed.
	TrialAttempts = 3
	// trialTimeout bounds one attempt; the harness's own deadline (the
	// trial's longest length and the handshake) ends it well before.
	trialTimeout = 15 * time.Minute
)

// AgentWorkflow evaluates one agent (docs/architecture.md#workflows):
// generate or find its scenario set (synth queue), play every trial as
// its own activity at most the agent's concurrency at once (CPU queue),
// each retried on a failed session and recorded as failed once retries
// are spent, then score the stored recordings. Its progress query counts
// trials and says how long they take.
func AgentWorkflow(ctx workflow.Context, in AgentInput) (AgentOutcome, error) {
	progress := ChildProgress{}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (ChildProgress, error) { return progress, nil }); err != nil {
		return AgentOutcome{}, err
	}
	if in.Set == nil {
		synth := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.Synth, time.Hour))
		var set activities.ScenarioSetPlan
		if err := workflow.ExecuteActivity(synth, (*activities.Activities).PrepareScenarios,
			activities.PrepareScenariosInput{Agent: in.Agent}).Get(ctx, &set); err != nil {
			return AgentOutcome{}, err
		}
		in.Set = &set
	}
	trials := in.Trials()
	in.Outcome.Name, in.Outcome.Trials = in.Agent.Name, len(trials)
	progress = ChildProgress{Total: len(trials), Done: in.Next, Estimate: in.Set.Estimate}
	outcomes := make([]activities.AgentTrialOutcome, len(trials))
	next, err := fanOut(ctx, in.Next, len(trials), in.Agent.Concurrency,
		func(i int) workflow.Future { return playTrial(ctx, in.Queues.CPU, trials[i], &outcomes[i]) },
		func(i int) {
			progress.Done++
			in.Outcome.count(outcomes[i])
		})
	if err != nil {
		return AgentOutcome{}, err
	}
	if next < len(trials) {
		in.Next = next
		return AgentOutcome{}, workflow.NewContinueAsNewError(ctx, AgentWorkflow, in)
	}
	cpu := workflow.WithActivityOptions(ctx, activityOptions(in.Queues.CPU, 30*time.Minute))
	err = workflow.ExecuteActivity(cpu, (*activities.Activities).ScoreAgent, in.Score()).Get(ctx, &in.Outcome.Key)
	return in.Outcome, err
}

// count adds one trial's outcome.
func (o *AgentOutcome) count(t activities.AgentTrialOutcome) {
	switch {
	case t.Failed:
		o.Failed++
	case t.Played:
		o.Played++
	default:
		o.Resumed++
	}
}

// Trials are the agent's trials in order: every scenario of the set, each
// played Repeats times in a row.
func (in AgentInput) Trials() []activities.AgentTrialInput {
	var out []activities.AgentTrialInput
	for _, sc := range in.Set.Scenarios {
		for rep := range in.Agent.Repeats {
			out = append(out, activities.AgentTrialInput{Agent: in.Agent, Set: in.Set.Prefix, Scenario: sc, Repeat: rep})
		}
	}
	return out
}

// Score is the input of the agent's ScoreAgent activity.
func (in AgentInput) Score() activities.ScoreAgentInput {
	return activities.ScoreAgentInput{Params: in.Params, AgentTrials: activities.AgentTrialsRef{
		Agent: in.Agent, Set: in.Set.Prefix, SetHash: in.Set.Hash, Scenarios: in.Set.Scenarios}}
}

// playTrial plays one trial and, when every attempt failed, records it as
// failed with the last attempt's error: a trial never fails the
// evaluation. The returned future is settled with out filled.
func playTrial(ctx workflow.Context, queue string, t activities.AgentTrialInput, out *activities.AgentTrialOutcome) workflow.Future {
	f, settle := workflow.NewFuture(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, trialOptions(queue)),
			(*activities.Activities).PlayAgentTrial, t).Get(ctx, out)
		if err != nil && ctx.Err() == nil {
			rec := workflow.WithActivityOptions(ctx, activityOptions(queue, 5*time.Minute))
			err = workflow.ExecuteActivity(rec, (*activities.Activities).RecordFailedTrial,
				activities.FailedTrialInput{Trial: t, Error: TrialError(err)}).Get(ctx, out)
		}
		settle.Set(nil, err)
	})
	return f
}

// trialOptions: a trial's session is retried a few times with a short
// backoff (an agent restarting comes back within seconds); a dead worker
// is noticed within the heartbeat timeout.
func trialOptions(queue string) workflow.ActivityOptions {
	o := activityOptions(queue, trialTimeout)
	o.RetryPolicy = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
		MaximumInterval: 10 * time.Second, MaximumAttempts: TrialAttempts}
	return o
}

// TrialError is what a failed trial records: the message of the last
// attempt's error (an activity's error reaches the workflow as an
// application error with its message), or the timeout that ended it.
func TrialError(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		return fmt.Sprintf("the trial's activity timed out (%s)", timeout.TimeoutType())
	}
	return err.Error()
}
