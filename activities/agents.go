package activities

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// PrepareScenariosInput asks for an agent's scenario set and its trials.
type PrepareScenariosInput struct {
	Agent spec.Agent
}

// ScenarioSetPlan is an agent's scenario set in the store and how long
// playing it takes.
type ScenarioSetPlan struct {
	Prefix, Hash string
	Scenarios    []ScenarioRef
	// Estimate is how long the agent's trials take at most on the wall
	// at its concurrency and rate (sweepagent.EstimateTrials).
	Estimate time.Duration
}

// ScenarioRef is one scenario of a set: its id and content hash.
type ScenarioRef struct {
	ID, Hash string
}

// PrepareScenarios generates the agent's scenario set into the store
// unless it is there (scenarios.json, stored last, marks it complete),
// and plans its trials. Generation depends only on preset and seed, so
// every worker and attempt writes the same bytes.
func (a *Activities) PrepareScenarios(ctx context.Context, in PrepareScenariosInput) (_ ScenarioSetPlan, err error) {
	defer permanent(&err)
	sc := in.Agent.Scenarios
	hash := agent.SetHash(sc.Preset, sc.Seed)
	prefix := keys.ScenarioSetPrefix(hash)
	done, err := store.Exists(ctx, a.Store, keys.File(prefix, agent.SetName))
	if err != nil {
		return ScenarioSetPlan{}, err
	}
	if !done {
		if err := a.generateScenarios(ctx, sc, prefix); err != nil {
			return ScenarioSetPlan{}, err
		}
	}
	set, err := a.readSet(ctx, prefix)
	if err != nil {
		return ScenarioSetPlan{}, err
	}
	p := ScenarioSetPlan{Prefix: prefix, Hash: hash, Estimate: sweepagent.EstimateTrials(in.Agent, set)}
	for i := range set.Scenarios {
		p.Scenarios = append(p.Scenarios, ScenarioRef{ID: set.Scenarios[i].ID, Hash: set.Scenarios[i].ContentHash()})
	}
	return p, nil
}

// generateScenarios writes the set into a scratch folder and stores it,
// scenarios.json last.
func (a *Activities) generateScenarios(ctx context.Context, sc spec.AgentScenarios, prefix string) error {
	dir, cleanup, err := a.scratch()
	if err != nil {
		return err
	}
	defer cleanup()
	out := filepath.Join(dir, "set")
	engines := a.Engines
	if engines == nil {
		if engines, err = synth.NewTTS(""); err != nil {
			return badInput("%v", err)
		}
	}
	stop := keepAlive(ctx, "generating scenarios")
	set, err := agent.Generate(ctx, agent.GenerateOptions{Preset: sc.Preset, Seed: sc.Seed, Out: out, Jobs: 1, Engines: engines})
	stop()
	if err != nil {
		return fmt.Errorf("scenario set %s seed %d: %w", sc.Preset, sc.Seed, err)
	}
	for _, s := range set.Scenarios {
		for _, name := range s.FileNames() {
			if err := putFile(ctx, a.Store, keys.MemberFile(prefix, s.ID, name), filepath.Join(out, s.ID, name)); err != nil {
				return err
			}
		}
		heartbeat(ctx, "storing scenarios")
	}
	return putFile(ctx, a.Store, keys.File(prefix, agent.SetName), filepath.Join(out, agent.SetName))
}

// readSet reads and checks a stored set's manifest.
func (a *Activities) readSet(ctx context.Context, prefix string) (*agent.Set, error) {
	key := keys.File(prefix, agent.SetName)
	data, err := store.GetBytes(ctx, a.Store, key)
	if err != nil {
		return nil, err
	}
	set, err := agent.ParseSet(data)
	if err != nil {
		return nil, corrupt(key, err)
	}
	return set, nil
}

// scenario finds a stored set's scenario by reference, checking its
// content hash.
func (a *Activities) scenario(ctx context.Context, prefix string, ref ScenarioRef) (*agent.Scenario, error) {
	set, err := a.readSet(ctx, prefix)
	if err != nil {
		return nil, err
	}
	sc, ok := set.Scenario(ref.ID)
	if !ok {
		return nil, badInput("scenario set %s has no scenario %q", prefix, ref.ID)
	}
	if h := sc.ContentHash(); h != ref.Hash {
		return nil, badInput("scenario %s of set %s has content hash %s, the plan says %s", ref.ID, prefix, h, ref.Hash)
	}
	return sc, nil
}

// credential is the secret named by the agent's credential_env: from the
// worker's Credentials, else its environment. No variable, no credential.
func (a *Activities) credential(name string) (credential.Secret, error) {
	if name == "" {
		return "", nil
	}
	if a.Credentials != nil {
		return a.Credentials(name)
	}
	return credential.FromEnv(name)
}
