package activities

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
)

// AgentTrialInput asks for one trial: a scenario of a stored set played
// to an agent for the Repeat-th time (from 0).
type AgentTrialInput struct {
	Agent    spec.Agent
	Set      string // the set's prefix
	Scenario ScenarioRef
	Repeat   int
}

// AgentTrialOutcome is what became of a trial: its recording's key (a
// prefix holding recording.json, input.wav and output.wav) and whether it
// was played now, found stored, or recorded as failed.
type AgentTrialOutcome struct {
	Key    string
	Played bool
	Failed bool
}

// PlayAgentTrial plays one trial to the agent in real time (at its rate)
// and stores its recording; a trial stored already, and not failed, is
// not played again. It heartbeats while it plays. A session that fails
// (refused, dropped, malformed, silent past its deadline) is an error
// Temporal retries; RecordFailedTrial stores the trial as failed once the
// retries are spent.
func (a *Activities) PlayAgentTrial(ctx context.Context, in AgentTrialInput) (_ AgentTrialOutcome, err error) {
	defer permanent(&err)
	key := sweepagent.TrialKey(in.Agent, in.Scenario.Hash, in.Repeat)
	out := AgentTrialOutcome{Key: key}
	if ok, err := a.playedAlready(ctx, key); err != nil || ok {
		return out, err
	}
	sc, err := a.scenario(ctx, in.Set, in.Scenario)
	if err != nil {
		return out, err
	}
	ep := in.Agent.ProtoEndpoint()
	ep.Limits = a.limits()
	if ep.Credential, err = a.credential(in.Agent.CredentialEnv); err != nil {
		return out, badInput("agent %s: %v", in.Agent.Name, err)
	}
	dir, cleanup, err := a.scratch()
	if err != nil {
		return out, err
	}
	defer cleanup()
	audio, err := a.scenarioAudio(ctx, in.Set, sc, dir)
	if err != nil {
		return out, err
	}
	stop := keepAlive(ctx, "playing "+sc.ID)
	rec, input, output, err := harness.PlayTrial(ctx, ep, harness.Trial{Scenario: sc, Audio: audio, Repeat: in.Repeat}, sweepagent.HarnessOptions(in.Agent))
	stop()
	if err != nil {
		return out, fmt.Errorf("agent %s, scenario %s, repeat %d: %w", in.Agent.Name, sc.ID, in.Repeat, err)
	}
	out.Played = true
	return out, a.storeRecording(ctx, key, rec, input, output, dir)
}

// FailedTrialInput records a trial that failed for good, with its error.
type FailedTrialInput struct {
	Trial AgentTrialInput
	Error string
}

// RecordFailedTrial stores a trial whose every attempt failed as a
// recording with its error and no audio, so that the results name the
// error and a later sweep plays it again.
func (a *Activities) RecordFailedTrial(ctx context.Context, in FailedTrialInput) (_ AgentTrialOutcome, err error) {
	defer permanent(&err)
	t := in.Trial
	out := AgentTrialOutcome{Key: sweepagent.TrialKey(t.Agent, t.Scenario.Hash, t.Repeat), Failed: true}
	sc, err := a.scenario(ctx, t.Set, t.Scenario)
	if err != nil {
		return out, err
	}
	rec := harness.FailedRecording(sc, t.Repeat, sweepagent.HarnessOptions(t.Agent), in.Error)
	dir, cleanup, err := a.scratch()
	if err != nil {
		return out, err
	}
	defer cleanup()
	return out, a.storeRecording(ctx, out.Key, rec, nil, nil, dir)
}

// playedAlready reports whether key holds a recording of a trial that
// was played (a failed one is played again).
func (a *Activities) playedAlready(ctx context.Context, key string) (bool, error) {
	rk := keys.File(key, agent.RecordingName)
	data, err := store.GetBytes(ctx, a.Store, rk)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r, err := agent.ParseRecording(data)
	if err != nil {
		return false, corrupt(rk, err)
	}
	return r.Error == "", nil
}

// scenarioAudio fetches a scenario's files into dir, each checked against
// the set's manifest, and reads them.
func (a *Activities) scenarioAudio(ctx context.Context, prefix string, sc *agent.Scenario, dir string) (agent.ScenarioAudio, error) {
	for _, name := range sc.FileNames() {
		key := keys.MemberFile(prefix, sc.ID, name)
		if err := a.fetchVerified(ctx, key, sc.Files[name], maxScenarioFile, filepath.Join(dir, sc.ID, name)); err != nil {
			return agent.ScenarioAudio{}, err
		}
	}
	audio, err := agent.LoadAudio(dir, sc)
	if err != nil {
		return audio, corrupt(keys.File(prefix, sc.ID), err)
	}
	return audio, nil
}

// maxScenarioFile bounds one scenario file: ten minutes of 16 kHz PCM16.
const maxScenarioFile = 10 * 60 * agent.SampleRate * 2

// storeRecording writes the recording into dir (which checks it) and
// stores its files under key, recording.json last: its presence means
// the trial is stored whole.
func (a *Activities) storeRecording(ctx context.Context, key string, rec *agent.Recording, input, output []float32, dir string) error {
	const name = "trial"
	if err := agent.WriteRecording(dir, name, rec, input, output); err != nil {
		return err
	}
	folder := filepath.Join(dir, name)
	for _, f := range []string{agent.InputName, agent.OutputName} {
		if _, ok := rec.Files[f]; ok {
			if err := putFile(ctx, a.Store, keys.File(key, f), filepath.Join(folder, f)); err != nil {
				return err
			}
		}
	}
	return putFile(ctx, a.Store, keys.File(key, agent.RecordingName), filepath.Join(folder, agent.RecordingName))
}

// readRecording reads a stored trial: its recording and, when it has
// audio, the agent's output, checked against the recording.
func (a *Activities) readRecording(ctx context.Context, key, dir string) (*agent.Recording, []float32, error) {
	rk := keys.File(key, agent.RecordingName)
	data, err := store.GetBytes(ctx, a.Store, rk)
	if err != nil {
		return nil, nil, err
	}
	r, err := agent.ParseRecording(data)
	if err != nil {
		return nil, nil, corrupt(rk, err)
	}
	if !r.HasAudio() {
		return r, nil, nil
	}
	ok := keys.File(key, agent.OutputName)
	if err := a.fetchVerified(ctx, ok, r.Files[agent.OutputName], int64(r.Samples)*2+1024, filepath.Join(dir, agent.OutputName)); err != nil {
		return nil, nil, err
	}
	output, err := r.ReadOutput(dir)
	if err != nil {
		return nil, nil, corrupt(ok, err)
	}
	return r, output, nil
}
