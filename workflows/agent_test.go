package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/sweep"
)

// agentSpec is a spec of one agent on a set of three scenarios.
func agentSpec(concurrency, repeats int) spec.Sweep {
	s := spec.Sweep{Name: "agents", Agents: []spec.Agent{{Name: "bot", Protocol: "duplex", Endpoint: "ws://127.0.0.1:1/",
		Concurrency: concurrency, Repeats: repeats, Scenarios: spec.AgentScenarios{Preset: "tiny-agent", Seed: 1}}}}
	s.Normalise()
	return s
}

var agentSet = activities.ScenarioSetPlan{Prefix: "scenarios/s", Hash: "s", Estimate: 90 * time.Second,
	Scenarios: []activities.ScenarioRef{{ID: "a", Hash: "ha"}, {ID: "b", Hash: "hb"}, {ID: "c", Hash: "hc"}}}

// trialRecorder answers PlayAgentTrial: it counts the trials in flight
// (never more than the agent's concurrency) and each trial's attempts,
// and plays, finds stored or fails them as told.
type trialRecorder struct {
	mu               sync.Mutex
	inFlight         *inFlight
	attempts         map[string]int
	stored, failing  map[string]bool
	recordedFailures map[string]string
}

func trialName(t activities.AgentTrialInput) string {
	return fmt.Sprintf("%s-r%d", t.Scenario.ID, t.Repeat)
}

func (r *trialRecorder) play(_ context.Context, t activities.AgentTrialInput) (activities.AgentTrialOutcome, error) {
	name := trialName(t)
	r.inFlight.enter()
	defer r.inFlight.leave()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts[name]++
	if r.failing[name] {
		return activities.AgentTrialOutcome{}, errors.New("receive: the duplex agent at ws://127.0.0.1:1/ sent nothing for 5s of session time")
	}
	return activities.AgentTrialOutcome{Key: "trials/" + name, Played: !r.stored[name]}, nil
}

func (r *trialRecorder) recordFailure(_ context.Context, in activities.FailedTrialInput) (activities.AgentTrialOutcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recordedFailures[trialName(in.Trial)] = in.Error
	return activities.AgentTrialOutcome{Key: "trials/" + trialName(in.Trial), Failed: true}, nil
}

func newAgentEnv(r *trialRecorder) (*testsuite.TestWorkflowEnvironment, *activities.Activities) {
	env, a := newSweepEnv()
	env.RegisterWorkflow(AgentWorkflow)
	env.OnActivity(a.PrepareScenarios, mock.Anything, mock.Anything).Return(agentSet, nil).Once()
	env.OnActivity(a.PlayAgentTrial, mock.Anything, mock.Anything).Return(r.play)
	return env, a
}

func newTrialRecorder() *trialRecorder {
	return &trialRecorder{inFlight: newInFlight(), attempts: map[string]int{}, stored: map[string]bool{}, failing: map[string]bool{}, recordedFailures: map[string]string{}}
}

// Every scenario is played Repeats times, at most the agent's concurrency
// at once, then scored; a trial whose every attempt fails is tried
// TrialAttempts times and recorded as failed with its error, and the
// evaluation goes on; trials found stored count as resumed.
func TestAgentWorkflowPlaysEveryTrialBounded(t *testing.T) {
	r := newTrialRecorder()
	r.failing["b-r1"], r.stored["a-r0"], r.stored["a-r1"] = true, true, true
	env, a := newAgentEnv(r)
	env.OnActivity(a.RecordFailedTrial, mock.Anything, mock.Anything).Return(r.recordFailure).Once()
	s := agentSpec(2, 2)
	var scored activities.ScoreAgentInput
	env.OnActivity(a.ScoreAgent, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.ScoreAgentInput) (string, error) {
		scored = in
		return "agent-results/bot.json", nil
	}).Once()
	env.ExecuteWorkflow(AgentWorkflow, AgentInput{Agent: s.Agents[0], Queues: s.Queues, Params: AgentScoreParams(s)})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out AgentOutcome
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	want := AgentOutcome{Name: "bot", Key: "agent-results/bot.json", Trials: 6, Played: 3, Resumed: 2, Failed: 1}
	if out != want {
		t.Errorf("outcome %+v, want %+v", out, want)
	}
	if len(r.attempts) != 6 || r.attempts["b-r1"] != TrialAttempts || r.attempts["a-r0"] != 1 {
		t.Errorf("attempts %v: want every trial once, the failing one %d times", r.attempts, TrialAttempts)
	}
	if most := r.inFlight.mostAtOnce(); most != 2 {
		t.Errorf("%d trials in flight at once, concurrency 2", most)
	}
	if msg := r.recordedFailures["b-r1"]; !strings.Contains(msg, "sent nothing for 5s") || len(r.recordedFailures) != 1 {
		t.Errorf("recorded failures %v", r.recordedFailures)
	}
	if scored.AgentTrials.Set != "scenarios/s" || len(scored.AgentTrials.Scenarios) != 3 || scored.Params.Bootstrap != s.Resamples() {
		t.Errorf("score input %+v", scored)
	}
	var progress ChildProgress
	if v, err := env.QueryWorkflow(ProgressQuery); err != nil || v.Get(&progress) != nil {
		t.Fatalf("progress query: %v", err)
	}
	if progress != (ChildProgress{Total: 6, Done: 6, Estimate: 90 * time.Second}) {
		t.Errorf("progress %+v", progress)
	}
	env.AssertExpectations(t)
}

// A sweep of agents alone runs no corpus and aggregates the agents'
// results; its progress names each agent with its trials.
func TestSweepOfAgentsAlone(t *testing.T) {
	r := newTrialRecorder()
	env, a := newAgentEnv(r)
	env.OnActivity(a.ScoreAgent, mock.Anything, mock.Anything).Return("agent-results/bot.json", nil).Once()
	var aggregated activities.AggregateInput
	env.OnActivity(a.Aggregate, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.AggregateInput) (string, error) {
		aggregated = in
		return "bundle-a", nil
	}).Once()
	in := sweep.Input{Spec: agentSpec(4, 1), SpecHash: "h", CodeVersion: "test"}
	env.ExecuteWorkflow(SweepWorkflow, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(aggregated.Agents) != 1 || aggregated.Agents[0] != "agent-results/bot.json" || len(aggregated.Evaluations) != 0 {
		t.Errorf("aggregation input %+v", aggregated)
	}
	v, err := env.QueryWorkflow(ProgressQuery)
	var p Progress
	if err == nil {
		err = v.Get(&p)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Agents) != 1 || p.Agents[0].Trials != 3 || p.Agents[0].Done != 3 || p.Agents[0].Concurrency != 4 || len(p.Running) != 0 {
		t.Errorf("progress %+v", p)
	}
	env.AssertExpectations(t)
}

// A sweep fails with the agent named when its evaluation cannot start
// (its scenario set cannot be made).
func TestSweepNamesTheAgentThatFailed(t *testing.T) {
	env, a := newSweepEnv()
	env.RegisterWorkflow(AgentWorkflow)
	env.OnActivity(a.PrepareScenarios, mock.Anything, mock.Anything).Return(activities.ScenarioSetPlan{},
		temporal.NewNonRetryableApplicationError("espeak-ng is not installed", sweep.BadInput, nil)).Once()
	env.ExecuteWorkflow(SweepWorkflow, sweep.Input{Spec: agentSpec(1, 1), SpecHash: "h"})
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "agent bot") || !strings.Contains(err.Error(), "espeak-ng is not installed") {
		t.Errorf("error %v", err)
	}
}
