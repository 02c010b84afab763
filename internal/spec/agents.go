package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/redact"
)

// Agent is one voice agent to evaluate on an interactive scenario set
// (docs/agents.md#in-sweeps): where it listens, how to talk to it, and
// which trials to play it. The credential itself is never in a spec:
// CredentialEnv names the variable a worker reads it from.
type Agent struct {
	Name     string `yaml:"name" json:"name"`
	Protocol string `yaml:"protocol" json:"protocol"`
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// Model is recorded with every trial; over realtime it is asked for.
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// Voice, Instructions, TurnDetection and RealtimeAPI configure a
	// realtime session (proto.RealtimeOptions).
	Voice         string `yaml:"voice,omitempty" json:"voice,omitempty"`
	Instructions  string `yaml:"instructions,omitempty" json:"instructions,omitempty"`
	TurnDetection string `yaml:"turn_detection,omitempty" json:"turn_detection,omitempty"`
	RealtimeAPI   string `yaml:"realtime_api,omitempty" json:"realtime_api,omitempty"`
	// Concurrency bounds the sessions open at once: the endpoint's limit.
	// It and the credential are how a run runs, left out of the sweep's
	// identity (Sweep.Canonical).
	Concurrency int `yaml:"concurrency,omitempty" json:"concurrency,omitzero"`
	// CredentialEnv names the environment variable (or config file entry)
	// holding the credential; AuthHeader the header it is sent in.
	CredentialEnv string `yaml:"credential_env,omitempty" json:"credential_env,omitempty"`
	AuthHeader    string `yaml:"auth_header,omitempty" json:"auth_header,omitempty"`
	// AuthQuery, when set, sends the credential as this URL query
	// parameter instead (gemini-live: key; moshi-server: auth_id).
	AuthQuery string `yaml:"auth_query,omitempty" json:"auth_query,omitempty"`
	// CAFile names a PEM file of CA certificates, on the machine that
	// runs the sessions (a worker), trusted for a wss:// endpoint beside
	// the system's roots.
	CAFile string `yaml:"ca_file,omitempty" json:"ca_file,omitempty"`
	// Rate is the playback rate: 1 is real time (the default); faster
	// only for agents that keep time by the audio they hear.
	Rate float64 `yaml:"rate,omitempty" json:"rate"`
	// Scenarios is the agent's START/STOP trial set; an agent that is
	// only seated (Seated) has none (Preset "").
	Scenarios AgentScenarios `yaml:"scenarios" json:"scenarios"`
	// Repeats is how often each scenario is played (MPTB: 3).
	Repeats int `yaml:"repeats,omitempty" json:"repeats"`
	// Acoustics, when set, plays every trial under these conditions
	// (docs/agents.md#acoustic-conditions): noise at an SNR, the agent's
	// own voice echoed into its input. They are how trials are played, so
	// they name the trials' recordings (harness.PlayHash), not the agent.
	Acoustics *agent.Acoustics `yaml:"acoustics,omitempty" json:"acoustics,omitempty"`
	// Seated, when set, also seats the agent in the sweep's corpora as a
	// system (docs/agents.md#seated-agents-in-sweeps).
	Seated *Seated `yaml:"seated,omitempty" json:"seated,omitempty"`
}

// Seated says where a sweep seats an agent as a system: in every
// conversation of the named corpora, in the named speakers' seats.
type Seated struct {
	// Corpora are names of the spec's corpora; empty is every corpus
	// (normalising lists them).
	Corpora []string `yaml:"corpora,omitempty" json:"corpora"`
	// Speakers are the speaker numbers (from 1) the agent stands in for;
	// empty is every speaker of every conversation.
	Speakers []int `yaml:"speakers,omitempty" json:"speakers,omitempty"`
	// TailS is the silence sent after each conversation, in seconds
	// (limits.DefaultSeatTailS).
	TailS float64 `yaml:"tail_s,omitempty" json:"tail_s"`
}

// HasTrials reports whether the agent plays START/STOP trials: whether
// it names a scenario set.
func (a Agent) HasTrials() bool { return a.Scenarios.Preset != "" }

// AgentScenarios names a generated scenario set.
type AgentScenarios struct {
	Preset string `yaml:"preset" json:"preset"`
	Seed   uint64 `yaml:"seed" json:"seed"`
}

// AgentIdentity is what decides an agent's behaviour in a trial: the
// content keys of its recordings hash it. The credential, the concurrency
// and the agent's name in this spec are how a run runs, not what it
// records.
type AgentIdentity struct {
	Protocol      string  `json:"protocol"`
	Endpoint      string  `json:"endpoint"`
	Model         string  `json:"model"`
	Voice         string  `json:"voice"`
	Instructions  string  `json:"instructions"`
	TurnDetection string  `json:"turn_detection"`
	RealtimeAPI   string  `json:"realtime_api"`
	Rate          float64 `json:"rate"`
}

// Identity is a's identity, defaults filled.
func (a Agent) Identity() AgentIdentity {
	return AgentIdentity{Protocol: a.Protocol, Endpoint: a.Endpoint, Model: a.Model, Voice: a.Voice,
		Instructions: a.Instructions, TurnDetection: a.TurnDetection, RealtimeAPI: a.RealtimeAPI, Rate: a.rate()}
}

// ProtoEndpoint is how a harness reaches a, without its credential (a worker
// adds it from CredentialEnv).
func (a Agent) ProtoEndpoint() proto.Endpoint {
	return proto.Endpoint{Protocol: a.Protocol, URL: a.Endpoint, AuthHeader: a.AuthHeader, AuthQuery: a.AuthQuery, CAFile: a.CAFile, Rate: a.rate(),
		Realtime: proto.RealtimeOptions{Model: a.Model, Voice: a.Voice, Instructions: a.Instructions,
			TurnDetection: a.TurnDetection, API: a.RealtimeAPI}}
}

// DefaultAgentRate is an agent's default playback rate: real time. Its
// other defaults and its bounds are limits' (limits.DefaultAgentSessions,
// limits.MaxAgentSessions ...) and MPTB's three repeats
// (agent.DefaultRepeats).
const DefaultAgentRate = 1.0

func (a Agent) rate() float64 {
	if a.Rate == 0 {
		return DefaultAgentRate
	}
	return a.Rate
}

// normalise fills a's defaults.
func (a *Agent) normalise() {
	a.Rate = a.rate()
	if a.Concurrency == 0 {
		a.Concurrency = limits.DefaultAgentSessions
	}
	if a.Repeats == 0 {
		a.Repeats = agent.DefaultRepeats
	}
	if a.Acoustics != nil {
		ac := a.Acoustics.Filled()
		a.Acoustics = &ac
		if ac == (agent.Acoustics{}) { // acoustics: {} is clean
			a.Acoustics = nil
		}
	}
	if a.Seated != nil {
		seatedOn := *a.Seated
		if seatedOn.TailS == 0 {
			seatedOn.TailS = limits.DefaultSeatTailS
		}
		seatedOn.Corpora, seatedOn.Speakers = slices.Clone(seatedOn.Corpora), slices.Clone(seatedOn.Speakers)
		slices.Sort(seatedOn.Speakers)
		a.Seated = &seatedOn
	}
}

// normaliseSeated lists every corpus for a seated agent that names none.
func (a *Agent) normaliseSeated(corpora []Corpus) {
	if a.Seated == nil || len(a.Seated.Corpora) > 0 {
		return
	}
	for _, c := range corpora {
		a.Seated.Corpora = append(a.Seated.Corpora, c.Name)
	}
}

// checkAgents checks every agent: unique names and every setting, each
// error naming the field and its value; a seated agent's corpora must be
// corpora of the spec, and its name no system's (both are ranked on the
// same leaderboards).
func checkAgents(agents []Agent, corpora []Corpus, systems []System) error {
	names := map[string]string{}
	for i, a := range agents {
		where := fmt.Sprintf("agents[%d]", i)
		if err := checkName(where, a.Name, names); err != nil {
			return err
		}
		if err := a.check(); err != nil {
			return fmt.Errorf("%s (%s).%w", where, a.Name, err)
		}
		if err := a.Seated.check(corpora); err != nil {
			return fmt.Errorf("%s (%s).seated.%w", where, a.Name, err)
		}
		if j := slices.IndexFunc(systems, func(s System) bool { return s.Name == a.Name }); a.Seated != nil && j >= 0 {
			return fmt.Errorf("%s.name: %q is also the name of systems[%d]; a seated agent is ranked beside the systems", where, a.Name, j)
		}
	}
	return nil
}

// check checks a seated agent's settings; the error starts with the
// field. A nil Seated is an agent that is not seated.
func (s *Seated) check(corpora []Corpus) error {
	if s == nil {
		return nil
	}
	if len(corpora) == 0 {
		return fieldError("corpora", "the spec has no corpora to seat the agent in")
	}
	for i, name := range s.Corpora {
		if !slices.ContainsFunc(corpora, func(c Corpus) bool { return c.Name == name }) {
			return fieldError(fmt.Sprintf("corpora[%d]", i), "%s is not a corpus of this spec", redact.Name(name))
		}
		if slices.Index(s.Corpora, name) != i {
			return fieldError(fmt.Sprintf("corpora[%d]", i), "%s twice", redact.Name(name))
		}
	}
	for i, k := range s.Speakers {
		if k < 1 || k > limits.MaxSeatSpeaker {
			return fieldError(fmt.Sprintf("speakers[%d]", i), "%d (want a speaker number from 1 to %d)", k, limits.MaxSeatSpeaker)
		}
		if slices.Index(s.Speakers, k) != i {
			return fieldError(fmt.Sprintf("speakers[%d]", i), "speaker %d twice", k)
		}
	}
	if !(s.TailS >= 0 && s.TailS <= limits.MaxSeatTailS) {
		return fieldError("tail_s", "%g (want 0 to %g seconds; 0 is %g)", s.TailS, limits.MaxSeatTailS, limits.DefaultSeatTailS)
	}
	return nil
}

// fieldError names a field of an agent and what is wrong with its value.
func fieldError(field, format string, args ...any) error {
	return fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
}

// check checks one agent's settings; the error starts with the field.
// The endpoint's settings (protocol, endpoint, the realtime settings,
// rate, auth_header) are checked by proto.Endpoint.Check, their one
// owner; the rest, how a sweep runs the agent, here.
func (a Agent) check() error {
	if err := a.ProtoEndpoint().Check(); err != nil {
		return err // it starts with the setting's name
	}
	if a.Concurrency < 0 || a.Concurrency > limits.MaxAgentSessions {
		return fieldError("concurrency", "%d (want 1 to %d; 0 is %d)", a.Concurrency, limits.MaxAgentSessions, limits.DefaultAgentSessions)
	}
	if a.Repeats < 0 || a.Repeats > limits.MaxAgentRepeats {
		return fieldError("repeats", "%d (want 1 to %d; 0 is %d)", a.Repeats, limits.MaxAgentRepeats, agent.DefaultRepeats)
	}
	if a.CredentialEnv != "" && !envName.Match(a.CredentialEnv) {
		return fieldError("credential_env", "%q is not an environment variable name (letters, digits and _, not starting with a digit)", a.CredentialEnv)
	}
	if err := a.checkAcoustics(); err != nil {
		return err
	}
	if a.Seated != nil && a.Scenarios == (AgentScenarios{}) {
		return nil // seated only: no trials
	}
	if !slices.Contains(agent.ScenarioPresetNames, a.Scenarios.Preset) {
		return fieldError("scenarios.preset", "%q (want one of %s; an agent with seated: may have no scenarios)", a.Scenarios.Preset, strings.Join(agent.ScenarioPresetNames, ", "))
	}
	return nil
}

// checkAcoustics checks the acoustic conditions as normalising will fill
// them (an echo without its delay takes the default): each bound is
// agent.Acoustics.Validate's. They apply to trials; a seated session
// plays the corpus as it is, so an agent without scenarios may have none.
func (a Agent) checkAcoustics() error {
	if a.Acoustics == nil {
		return nil
	}
	if !a.HasTrials() {
		return fieldError("acoustics", "set on an agent without scenarios (they apply to its trials; seated sessions play the corpus as it is)")
	}
	if err := a.Acoustics.Filled().Validate(); err != nil {
		return fmt.Errorf("acoustics.%w", err)
	}
	return nil
}

var envName = names.MustForm(`^[A-Za-z_][A-Za-z0-9_]*$`, 128)
