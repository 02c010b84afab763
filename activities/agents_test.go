package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/agent/sweepagent"
	"github.com/floorbench/floorbench/internal/credential"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// serveRefAgent serves the reference agent with policy on 127.0.0.1 until
// the test ends and returns its URL.
func serveRefAgent(t *testing.T, policy string) string {
	t.Helper()
	tts, err := refagent.EspeakTTS()
	if err != nil {
		if testenv.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ref, err := refagent.New(context.Background(), refagent.DefaultConfig(policy), tts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ref.Handler("duplex", proto.ServerOptions{Rate: agentRate})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = proto.Serve(ctx, l, h)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "ws://" + l.Addr().String() + "/"
}

// tinyAgent is an agent of a parsed sweep spec at url, on tiny-agent.
func tinyAgent(t *testing.T, name, url string) spec.Agent {
	t.Helper()
	s, err := spec.Parse("agents.yaml", []byte(fmt.Sprintf(`name: agents
agents:
  - name: %s
    protocol: duplex
    endpoint: %s
    rate: %d
    concurrency: 1
    repeats: 1
    scenarios: {preset: tiny-agent, seed: 1}
`, name, url, agentRate)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return s.Agents[0]
}

// An agent's trials through the activities: the scenario set is
// generated once, a trial is played once, a trial that failed for good
// is stored with its error and played again by a later sweep, and the
// scores name both; every step run again stores nothing.
func TestAgentTrialsPlayOnceAndScore(t *testing.T) {
	ctx := context.Background()
	a, rec, _ := recording(t)
	ag := tinyAgent(t, "never-yield", serveRefAgent(t, refagent.NeverYield))

	plan, err := a.PrepareScenarios(ctx, PrepareScenariosInput{Agent: ag})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Scenarios) != 14 || plan.Estimate <= 0 {
		t.Fatalf("plan of tiny-agent: %d scenarios, estimate %v", len(plan.Scenarios), plan.Estimate)
	}
	if puts := rec.take(); len(puts) == 0 || puts[len(puts)-1] != keys.File(plan.Prefix, agent.SetName) {
		t.Fatalf("the set's manifest is not stored last: %v", puts)
	}
	if again, err := a.PrepareScenarios(ctx, PrepareScenariosInput{Agent: ag}); err != nil || !slices.Equal(again.Scenarios, plan.Scenarios) {
		t.Fatalf("prepared again: %v, %v", again.Scenarios, err)
	}
	if puts := rec.take(); len(puts) != 0 {
		t.Errorf("preparing a stored set again stored %v", puts)
	}

	played := AgentTrialInput{Agent: ag, Set: plan.Prefix, Scenario: plan.Scenarios[0]}
	out, err := a.PlayAgentTrial(ctx, played)
	if err != nil || !out.Played || out.Key != sweepagent.TrialKey(ag, plan.Scenarios[0].Hash, 0) {
		t.Fatalf("first play: %+v, %v", out, err)
	}
	if puts := rec.take(); len(puts) != 3 || puts[2] != keys.File(out.Key, agent.RecordingName) {
		t.Errorf("a trial stores input, output and its recording last: %v", puts)
	}
	if again, err := a.PlayAgentTrial(ctx, played); err != nil || again.Played {
		t.Errorf("a stored trial was played again: %+v, %v", again, err)
	}
	failedRef := AgentTrialInput{Agent: ag, Set: plan.Prefix, Scenario: plan.Scenarios[1]}
	failed, err := a.RecordFailedTrial(ctx, FailedTrialInput{Trial: failedRef, Error: "session refused: 503"})
	if err != nil || !failed.Failed {
		t.Fatalf("record failed: %+v, %v", failed, err)
	}
	if puts := rec.take(); len(puts) != 1 || puts[0] != keys.File(failed.Key, agent.RecordingName) {
		t.Errorf("a failed trial stores its recording alone: %v", puts)
	}

	in := ScoreAgentInput{AgentTrials: AgentTrialsRef{Agent: ag, Set: plan.Prefix, SetHash: plan.Hash, Scenarios: plan.Scenarios[:2]}, Params: agent.DefaultScoreParams()}
	in.Params.Bootstrap = 50
	key, err := a.ScoreAgent(ctx, in)
	if err != nil || key != AgentResultKey(in) {
		t.Fatalf("score: %s, %v", key, err)
	}
	var res agent.Results
	if err := json.Unmarshal([]byte(stored(t, a.Store, key)), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 2 || res.Trials[0].Error != "" || res.Trials[1].Error != "session refused: 503" || res.Trials[0].Agent != "never-yield" {
		t.Errorf("scored trials: %+v", res.Trials)
	}
	rec.take()
	if again, err := a.ScoreAgent(ctx, in); err != nil || again != key || len(rec.take()) != 0 {
		t.Errorf("scoring again: %s, %v", again, err)
	}

	if again, err := a.PlayAgentTrial(ctx, failedRef); err != nil || !again.Played {
		t.Errorf("a failed trial is played again: %+v, %v", again, err)
	}

	// The same agent under acoustic conditions plays the scenario again
	// under keys of its own, and its recordings, a failed one too, and
	// its scores name the conditions.
	snr, echo := 10.0, -20.0
	noisy := ag
	noisy.Acoustics = &agent.Acoustics{SNR: &snr, Echo: &echo, EchoDelayMS: 200}
	nout, err := a.PlayAgentTrial(ctx, AgentTrialInput{Agent: noisy, Set: plan.Prefix, Scenario: plan.Scenarios[0]})
	if err != nil || !nout.Played || nout.Key == out.Key {
		t.Fatalf("play under acoustics: %+v, %v (clean: %s)", nout, err, out.Key)
	}
	if _, err := a.RecordFailedTrial(ctx, FailedTrialInput{Trial: AgentTrialInput{Agent: noisy, Set: plan.Prefix, Scenario: plan.Scenarios[1]}, Error: "refused"}); err != nil {
		t.Fatal(err)
	}
	nin := in
	nin.AgentTrials.Agent = noisy
	nkey, err := a.ScoreAgent(ctx, nin)
	if err != nil || nkey == key {
		t.Fatalf("score under acoustics: %s, %v (clean: %s)", nkey, err, key)
	}
	var nres agent.Results
	if err := json.Unmarshal([]byte(stored(t, a.Store, nkey)), &nres); err != nil {
		t.Fatal(err)
	}
	const label = "snr 10 dB, echo -20 dB 200 ms"
	if len(nres.Trials) != 2 || nres.Trials[0].Acoustics != label || nres.Trials[1].Acoustics != label || nres.Trials[1].Error != "refused" ||
		len(nres.Agents) != 1 || nres.Agents[0].Acoustics != label {
		t.Errorf("scores under acoustics: agents %+v, trials %+v", nres.Agents, nres.Trials)
	}
}

// What a worker cannot act on is bad input, named: a scenario the set
// does not hold or whose content changed, a credential that is not set,
// scoring parameters out of range or over the worker's limits.
func TestAgentActivitiesRefuseBadInput(t *testing.T) {
	ctx := context.Background()
	a, _, local := recording(t)
	ag := tinyAgent(t, "a", "ws://127.0.0.1:1/")
	prefix := "scenarios/x"
	set := `{"schema_version": 1}`
	if err := store.PutBytes(ctx, local, keys.File(prefix, agent.SetName), []byte(set)); err != nil {
		t.Fatal(err)
	}
	_, err := a.PlayAgentTrial(ctx, AgentTrialInput{Agent: ag, Set: "scenarios/missing", Scenario: ScenarioRef{ID: "s", Hash: "h"}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a set not stored: %v", err)
	}
	_, err = a.RecordFailedTrial(ctx, FailedTrialInput{Trial: AgentTrialInput{Agent: ag, Set: prefix, Scenario: ScenarioRef{ID: "s", Hash: "h"}}})
	if err == nil || !strings.Contains(err.Error(), keys.File(prefix, agent.SetName)) {
		t.Errorf("a set that does not parse: %v", err)
	}

	in := ScoreAgentInput{AgentTrials: AgentTrialsRef{Agent: ag, Set: prefix}, Params: agent.DefaultScoreParams()}
	in.Params.Bootstrap = -1
	_, err = a.ScoreAgent(ctx, in)
	assertBadInput(t, "a negative bootstrap", err, "agent a: scoring: bootstrap -1")
	in.Params.Bootstrap = 1000
	strict := limits.Default()
	strict.Resamples = 100
	_, err = (&Activities{Store: local, Limits: strict}).ScoreAgent(ctx, in)
	assertBadInput(t, "a bootstrap over the worker's limit", err, "bootstrap: 1000 is over the limit of 100")

	a.Credentials = func(name string) (credential.Secret, error) {
		return "", errors.New("variable " + name + " is not set")
	}
	if _, err := a.credential("AGENT_KEY"); err == nil || !strings.Contains(err.Error(), "AGENT_KEY") {
		t.Errorf("a credential not set: %v", err)
	}
	if secret, err := a.credential(""); err != nil || secret != "" {
		t.Errorf("no credential named: %q, %v", secret, err)
	}
}
