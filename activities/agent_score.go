package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
)

// ScoreAgentInput asks for the scores of an agent's stored trials.
type ScoreAgentInput struct {
	AgentTrials AgentTrialsRef
	Params      agent.ScoreParams
}

// AgentTrialsRef names every trial of an agent on a stored set: each
// scenario of Scenarios played Agent.Repeats times.
type AgentTrialsRef struct {
	Agent     spec.Agent
	Set       string // the set's prefix
	SetHash   string
	Scenarios []ScenarioRef
}

// AgentResultKey is where the scores of in are stored: the agent's
// identity and name (the results name it), the set, the repeats, how
// trials were played, the scoring version and its parameters.
func AgentResultKey(in ScoreAgentInput) string {
	a := in.AgentTrials.Agent
	return keys.AgentResult(sweepagent.Hash(a), in.AgentTrials.SetHash, struct {
		Name    string
		Repeats int
		Play    string
		Scoring int
		Params  agent.ScoreParams
	}{a.Name, a.Repeats, sweepagent.TrialPlayHash(a), agent.ScoringVersion, in.Params})
}

// ScoreAgent decides every stored trial of the agent from its recorded
// output (no agent is contacted) and stores the agent's scores
// (agent.Results, failed trials with their errors) unless stored already.
// It returns their key.
func (a *Activities) ScoreAgent(ctx context.Context, in ScoreAgentInput) (_ string, err error) {
	defer permanent(&err)
	if err := in.Params.Validate(a.limits()); err != nil {
		return "", badInput("agent %s: scoring: %v", in.AgentTrials.Agent.Name, err)
	}
	key := AgentResultKey(in)
	if done, err := store.Exists(ctx, a.Store, key); err != nil || done {
		return key, err
	}
	defer keepAlive(ctx, "scoring agent "+in.AgentTrials.Agent.Name)()
	trials, err := a.decideTrials(ctx, in.AgentTrials, in.Params)
	if err != nil {
		return "", err
	}
	data, err := encodeResults(agent.Score(trials, in.Params))
	if err != nil {
		return "", err
	}
	return key, store.PutBytes(ctx, a.Store, key, data)
}

// decideTrials reads and decides every trial of ref, in scenario and
// repeat order, under this sweep's name and protocol for the agent (a
// recording is stored by content and may name it otherwise).
func (a *Activities) decideTrials(ctx context.Context, ref AgentTrialsRef, p agent.ScoreParams) ([]agent.Trial, error) {
	dir, cleanup, err := a.scratch()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var trials []agent.Trial
	for i, sc := range ref.Scenarios {
		for rep := range ref.Agent.Repeats {
			key := sweepagent.TrialKey(ref.Agent, sc.Hash, rep)
			r, output, err := a.readRecording(ctx, key, filepath.Join(dir, fmt.Sprint(i, "-", rep)))
			if err != nil {
				return nil, fmt.Errorf("agent %s, scenario %s, repeat %d: %w", ref.Agent.Name, sc.ID, rep, err)
			}
			t := agent.DecideTrial(r, output, p)
			t.Agent, t.Protocol = ref.Agent.Name, ref.Agent.Protocol
			trials = append(trials, t)
		}
		heartbeat(ctx, "scoring")
	}
	return trials, nil
}

// readAgentResults reads stored agent results.
func (a *Activities) readAgentResults(ctx context.Context, key string) (agent.Results, error) {
	var r agent.Results
	data, err := store.GetBytes(ctx, a.Store, key)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, corrupt(key, err)
	}
	return r, nil
}

// agentResults combines the sweep's stored agent results (nil: no
// agents), with the scoring parameters they share.
func (a *Activities) agentResults(ctx context.Context, in AggregateInput) (*agent.Results, error) {
	if len(in.Agents) == 0 {
		return nil, nil
	}
	var parts []agent.Results
	for _, key := range in.Agents {
		r, err := a.readAgentResults(ctx, key)
		if err != nil {
			return nil, err
		}
		if len(parts) > 0 && !reflect.DeepEqual(r.Params, parts[0].Params) {
			return nil, badInput("aggregate: agent results %s were scored with other parameters than %s", key, in.Agents[0])
		}
		parts = append(parts, r)
	}
	r := agent.Combine(parts[0].Params, parts...)
	return &r, nil
}

// encodeResults is results as stored: indented JSON with a final newline.
func encodeResults(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", " ")
	return append(data, '\n'), err
}
