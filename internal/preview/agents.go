package preview

import (
	"context"
	"errors"
	"time"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
)

// AgentPreview is one agent of a sweep: its trials, how many the store
// holds recorded, and how long the rest take at its concurrency.
type AgentPreview struct {
	Name        string  `json:"name"`
	Protocol    string  `json:"protocol"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate"`
	Preset      string  `json:"scenario_preset"`
	Seed        uint64  `json:"scenario_seed"`
	Scenarios   int     `json:"scenarios"`
	Repeats     int     `json:"repeats"`
	Trials      int     `json:"trials"`
	// Recorded are trials the store holds played (not failed).
	Recorded int `json:"recorded"`
	// SetStored says whether the scenario set is generated. EstimateS is
	// how long all the trials take at most on the wall at the agent's
	// concurrency (sweepagent.EstimateTrials), in seconds: of the generated set,
	// or before it is generated of the preset's planned scenarios
	// (agent.PlannedSet, which bound the generated ones).
	SetStored bool    `json:"scenario_set_stored"`
	EstimateS float64 `json:"estimate_s,omitempty"`
}

// Estimate is EstimateS as a duration.
func (p AgentPreview) Estimate() time.Duration {
	return time.Duration(p.EstimateS * float64(time.Second))
}

// previewAgent works out, from the store alone, agent a's trials and
// their length.
func previewAgent(ctx context.Context, st store.Store, a spec.Agent) (AgentPreview, error) {
	p := AgentPreview{Name: a.Name, Protocol: a.Protocol, Concurrency: a.Concurrency, Rate: a.Rate, Preset: a.Scenarios.Preset,
		Seed: a.Scenarios.Seed, Repeats: a.Repeats}
	preset, err := agent.ScenarioPresetByName(a.Scenarios.Preset)
	if err != nil {
		return p, err
	}
	p.Scenarios, p.Trials = len(preset.Designs), len(preset.Designs)*a.Repeats
	key := keys.File(keys.ScenarioSetPrefix(agent.SetHash(a.Scenarios.Preset, a.Scenarios.Seed)), agent.SetName)
	data, err := store.GetBytes(ctx, st, key)
	if errors.Is(err, store.ErrNotFound) {
		p.EstimateS = sweepagent.EstimateTrials(a, agent.PlannedSet(preset)).Seconds()
		return p, nil
	}
	if err != nil {
		return p, err
	}
	set, err := agent.ParseSet(data)
	if err != nil {
		return p, err
	}
	p.SetStored, p.EstimateS = true, sweepagent.EstimateTrials(a, set).Seconds()
	for i := range set.Scenarios {
		h := set.Scenarios[i].ContentHash()
		for rep := range a.Repeats {
			played, err := recordedTrial(ctx, st, sweepagent.TrialKey(a, h, rep))
			if err != nil {
				return p, err
			}
			if played {
				p.Recorded++
			}
		}
	}
	return p, nil
}

// recordedTrial reports whether the trial under key is stored played.
func recordedTrial(ctx context.Context, st store.Store, key string) (bool, error) {
	data, err := store.GetBytes(ctx, st, keys.File(key, agent.RecordingName))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r, err := agent.ParseRecording(data)
	return err == nil && r.Error == "", nil
}
