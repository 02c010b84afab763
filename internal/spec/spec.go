// Package spec reads, validates and normalises sweep specs (docs/formats.md#sweep-spec): the
// YAML a lab writes to say which corpora, which systems, which protocol
// constants and which bootstrap to run. What the normalised spec computes
// (defaults filled, local files replaced by their content hashes) is
// hashed into the workflow id, so the same computation is one run
// whichever task queues and concurrency it runs with.
package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/names"
	"github.com/floorbench/floorbench/internal/redact"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// Sweep is one sweep spec. Its fields say what the sweep computes, which
// Canonical hashes into its identity, except Queues, Concurrency and each
// agent's concurrency and credential (Agent), which say how it runs: they
// cannot change a number, so Canonical leaves them out.
type Sweep struct {
	Name    string   `yaml:"name" json:"name"`
	Corpora []Corpus `yaml:"corpora" json:"corpora"`
	Systems []System `yaml:"systems" json:"systems"`
	// Agents are voice agents evaluated on interactive scenarios beside
	// the systems (docs/agents.md#in-sweeps).
	Agents    []Agent   `yaml:"agents,omitempty" json:"agents,omitempty"`
	Protocol  Protocol  `yaml:"protocol" json:"protocol"`
	Bootstrap Bootstrap `yaml:"bootstrap" json:"bootstrap"`
	// Queues and Concurrency are how the sweep runs, not hashed.
	Queues Queues `yaml:"queues" json:"queues,omitzero"`
	// Concurrency bounds the activities one fan-out keeps in flight.
	Concurrency int `yaml:"concurrency" json:"concurrency,omitzero"`
}

// Corpus is one corpus to evaluate on: generated from a preset, a local
// folder in the native format, or a prefix in the configured bucket.
type Corpus struct {
	Name     string    `yaml:"name" json:"name"`
	Generate *Generate `yaml:"generate,omitempty" json:"generate,omitempty"`
	Path     string    `yaml:"path,omitempty" json:"-"`
	S3       string    `yaml:"s3,omitempty" json:"s3,omitempty"`
	// TransferFrom names the corpus whose dev operating points this one
	// uses when it has no dev data; by default the first generated (MPTB)
	// corpus with dev data.
	TransferFrom string `yaml:"transfer_from,omitempty" json:"transfer_from,omitempty"`
	// Hash is the content hash of a local or S3 corpus, filled by
	// resolution before submission; it replaces the path in the identity.
	Hash string `yaml:"-" json:"hash,omitempty"`
}

// Generate asks for a generated corpus; the backend keys choose its
// generative backends (docs/corpora.md#generative-backends).
type Generate struct {
	Preset         string `yaml:"preset" json:"preset"`
	Seed           uint64 `yaml:"seed" json:"seed"`
	backend.Config `yaml:",inline"`
}

// System is one system to evaluate: a built-in family with parameters, or
// a system spec file.
type System struct {
	Name    string            `yaml:"name" json:"name"`
	Builtin string            `yaml:"builtin,omitempty" json:"builtin,omitempty"`
	Params  map[string]string `yaml:"params,omitempty" json:"params,omitempty"`
	Spec    string            `yaml:"spec,omitempty" json:"-"`
	// SpecYAML is the content of Spec, read at resolution so workers never
	// need the submitter's files; it travels with the spec (a few KB).
	SpecYAML string `yaml:"-" json:"spec_yaml,omitempty"`
}

// Protocol holds the protocol constants; zero means the default.
type Protocol struct {
	TauPre       *float64 `yaml:"tau_pre_s" json:"tau_pre_s"`
	TauMax       *float64 `yaml:"tau_max_s" json:"tau_max_s"`
	FPBudgetDev  *float64 `yaml:"fp_budget_dev" json:"fp_budget_dev"`
	FPBudgetTest *float64 `yaml:"fp_budget_test" json:"fp_budget_test"`
	Candidates   *int     `yaml:"n_quantiles" json:"n_quantiles"`
	Refractory   *float64 `yaml:"refractory_s" json:"refractory_s"`
	// NegativeWindow is span or anchored (docs/protocol.md#negative-window).
	NegativeWindow *score.NegativeWindow `yaml:"negative_window" json:"negative_window,omitempty"`
	// LatencyBudgetsMS are the budgets of recall within a latency budget;
	// an empty list reports none.
	LatencyBudgetsMS *[]int `yaml:"latency_budgets_ms" json:"latency_budgets_ms,omitempty"`
}

// Bootstrap sets the conversation bootstrap.
type Bootstrap struct {
	Resamples *int   `yaml:"resamples" json:"resamples"`
	Seed      uint64 `yaml:"seed" json:"seed"`
}

// Queues names the Temporal task queues by resource.
type Queues struct {
	CPU   string `yaml:"cpu" json:"cpu"`
	GPU   string `yaml:"gpu" json:"gpu"`
	Synth string `yaml:"synth" json:"synth"`
}

// Default task queues (docs/architecture.md#task-queues).
const (
	QueueCPU   = "floorbench-cpu"
	QueueGPU   = "floorbench-gpu"
	QueueSynth = "floorbench-synth"
)

// DefaultConcurrency is how many activities a fan-out keeps in flight.
const DefaultConcurrency = 64

// Parse reads a spec from YAML; name is the file for messages. Unknown
// fields, type errors, invalid values and sizes over lim (Check) are
// errors naming the field.
func Parse(name string, data []byte, lim limits.Limits) (*Sweep, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Sweep
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty spec", name)
		}
		return nil, fmt.Errorf("%s: %w", name, redact.YAML(err))
	}
	if err := s.validate(lim); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// Load reads a spec file of at most lim's spec_bytes and parses it under
// lim.
func Load(path string, lim limits.Limits) (*Sweep, error) {
	data, err := lim.ReadSpec(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, lim)
}

// Params returns the protocol parameters with defaults filled.
func (s *Sweep) Params() score.Params {
	p := score.DefaultParams()
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.TauPre, s.Protocol.TauPre)
	set(&p.TauMax, s.Protocol.TauMax)
	set(&p.FPBudgetDev, s.Protocol.FPBudgetDev)
	set(&p.FPBudgetTest, s.Protocol.FPBudgetTest)
	set(&p.Refractory, s.Protocol.Refractory)
	if s.Protocol.Candidates != nil {
		p.Candidates = *s.Protocol.Candidates
	}
	if s.Protocol.NegativeWindow != nil {
		p.NegativeWindow = *s.Protocol.NegativeWindow
	}
	if s.Protocol.LatencyBudgetsMS != nil {
		p.LatencyBudgetsMS = slices.Clone(*s.Protocol.LatencyBudgetsMS)
	}
	return p
}

// Resamples is the bootstrap size with its default.
func (s *Sweep) Resamples() int {
	if s.Bootstrap.Resamples != nil {
		return *s.Bootstrap.Resamples
	}
	return score.DefaultBootstrap
}

func (s *Sweep) validate(lim limits.Limits) error {
	switch {
	case len(s.Corpora) == 0 && len(s.Agents) == 0:
		return fmt.Errorf("corpora: at least one corpus is needed (or an agent, under agents)")
	case len(s.Corpora) > 0 && len(s.Systems) == 0:
		return fmt.Errorf("systems: at least one system is needed to evaluate on the corpora")
	case len(s.Corpora) == 0 && len(s.Systems) > 0:
		return fmt.Errorf("corpora: at least one corpus is needed to evaluate the systems on")
	}
	names := map[string]string{}
	for i, c := range s.Corpora {
		where := fmt.Sprintf("corpora[%d]", i)
		if err := checkName(where, c.Name, names); err != nil {
			return err
		}
		set := 0
		for _, b := range []bool{c.Generate != nil, c.Path != "", c.S3 != ""} {
			if b {
				set++
			}
		}
		if set != 1 {
			return fmt.Errorf("%s (%s): give exactly one of generate, path or s3", where, c.Name)
		}
		if c.Generate != nil && c.Generate.Preset == "" {
			return fmt.Errorf("%s.generate.preset: missing", where)
		}
		if c.S3 != "" {
			if err := store.CheckPrefix(c.S3); err != nil {
				return fmt.Errorf("%s.s3: %w", where, err)
			}
		}
	}
	for i, c := range s.Corpora {
		if c.TransferFrom == "" {
			continue
		}
		if _, ok := names[c.TransferFrom]; !ok || c.TransferFrom == c.Name {
			return fmt.Errorf("corpora[%d].transfer_from: %s is not another corpus of this spec", i, redact.Name(c.TransferFrom))
		}
	}
	names = map[string]string{}
	for i, sys := range s.Systems {
		where := fmt.Sprintf("systems[%d]", i)
		if err := checkName(where, sys.Name, names); err != nil {
			return err
		}
		if (sys.Builtin == "") == (sys.Spec == "") {
			return fmt.Errorf("%s (%s): give exactly one of builtin or spec", where, sys.Name)
		}
	}
	return s.Check(lim)
}

// Check validates what a worker relies on and what survives normalisation
// (Path does not): protocol constants, presets, queue names, and sizes
// within the limits l. Submission checks it under the submitting
// process's limits, and the sweep workflow's first activity again under
// the worker's own.
func (s *Sweep) Check(l limits.Limits) error {
	for i, c := range s.Corpora {
		if c.Generate == nil {
			continue
		}
		if !slices.Contains(synth.PresetNames, c.Generate.Preset) {
			return fmt.Errorf("corpora[%d].generate.preset: unknown preset %s (want one of %s)", i, redact.Name(c.Generate.Preset), strings.Join(synth.PresetNames, ", "))
		}
		if err := c.Generate.Config.Validate(fmt.Sprintf("corpora[%d].generate.", i)); err != nil {
			return err
		}
		preset, _ := synth.PresetByName(c.Generate.Preset, c.Generate.Seed)
		if err := c.Generate.Config.CheckPools(preset, fmt.Sprintf("corpora[%d].generate.voices_names", i)); err != nil {
			return err
		}
	}
	if err := s.Params().Validate(l); err != nil {
		return fmt.Errorf("protocol: %w", err)
	}
	if s.Resamples() < 0 {
		return fmt.Errorf("bootstrap.resamples: must be >= 0, got %d", s.Resamples())
	}
	if err := l.CheckResamples("bootstrap.resamples", s.Resamples()); err != nil {
		return err
	}
	if s.Concurrency < 0 {
		return fmt.Errorf("concurrency: must be >= 0, got %d", s.Concurrency)
	}
	if err := l.CheckConcurrency("concurrency", s.Concurrency); err != nil {
		return err
	}
	for i, sys := range s.Systems {
		if err := l.CheckSpecBytes(fmt.Sprintf("systems[%d] (%s).spec", i, sys.Name), len(sys.SpecYAML)); err != nil {
			return err
		}
	}
	if err := checkAgents(s.Agents, s.Corpora, s.Systems); err != nil {
		return err
	}
	for _, q := range []struct{ field, name string }{{"queues.cpu", s.Queues.CPU}, {"queues.gpu", s.Queues.GPU}, {"queues.synth", s.Queues.Synth}} {
		if q.name != "" && !validQueue.Match(q.name) {
			return fmt.Errorf("%s: %s is not a task queue name (1-63 letters, digits, '.', '_' or '-', starting with a letter or digit)", q.field, redact.Name(q.name))
		}
	}
	return nil
}

// validQueue is a task queue name: short and plain, since it is shown in
// Temporal's UI, in logs and in messages, and fits a Kubernetes label.
var validQueue = names.Plain(63)

// checkName requires a unique name that is already a safe key segment, so
// the name a user reads in the bundle is the one in the spec.
func checkName(where, name string, seen map[string]string) error {
	if name == "" {
		return fmt.Errorf("%s.name: missing", where)
	}
	if store.SafeName(name) != name || len(name) > 64 {
		return fmt.Errorf("%s.name: %s must be 1-64 letters, digits, '.', '_' or '-', not starting with '.' or '-'", where, redact.Name(name))
	}
	if prev, ok := seen[name]; ok {
		return fmt.Errorf("%s.name: %q is also the name of %s", where, name, prev)
	}
	seen[name] = where
	return nil
}

// Normalise fills defaults (protocol, bootstrap, queues, concurrency) so
// that two specs that mean the same run hash the same.
func (s *Sweep) Normalise() {
	p := s.Params()
	s.Protocol = Protocol{&p.TauPre, &p.TauMax, &p.FPBudgetDev, &p.FPBudgetTest, &p.Candidates, &p.Refractory, &p.NegativeWindow, &p.LatencyBudgetsMS}
	// The negative window and the latency budgets came after sweeps were
	// first identified: at their defaults they stay out of the spec, so a
	// sweep submitted before them keeps its workflow id.
	d := score.DefaultParams()
	if p.NegativeWindow == d.NegativeWindow {
		s.Protocol.NegativeWindow = nil
	}
	if slices.Equal(p.LatencyBudgetsMS, d.LatencyBudgetsMS) {
		s.Protocol.LatencyBudgetsMS = nil
	}
	for _, c := range s.Corpora {
		if c.Generate != nil {
			// The offline backends named or not are the same run.
			c.Generate.Config = c.Generate.Config.Normalised()
		}
	}
	b := s.Resamples()
	s.Bootstrap.Resamples = &b
	if s.Queues.CPU == "" {
		s.Queues.CPU = QueueCPU
	}
	if s.Queues.GPU == "" {
		s.Queues.GPU = QueueGPU
	}
	if s.Queues.Synth == "" {
		s.Queues.Synth = QueueSynth
	}
	if s.Concurrency == 0 {
		s.Concurrency = DefaultConcurrency
	}
	for i := range s.Agents {
		s.Agents[i].normalise()
		s.Agents[i].normaliseSeated(s.Corpora)
	}
	if s.Corpora == nil { // a spec of agents only: [] and absent are one run
		s.Corpora = []Corpus{}
	}
	if s.Systems == nil {
		s.Systems = []System{}
	}
}

// Canonical is what the normalised spec computes, as JSON: the identity
// of a run. Local paths are left out (their content hashes stand in for
// them), and so is how the run runs (withoutRunSettings).
func (s *Sweep) Canonical() ([]byte, error) {
	c := s.withoutRunSettings()
	return json.Marshal(&c)
}

// withoutRunSettings is s with the settings of how it runs zeroed: task
// queues, concurrency, and each agent's concurrency and credential. Their
// omitzero and omitempty tags keep them out of the JSON, so a sweep moved
// to other queues or run wider is the same run with the same bundle.
func (s *Sweep) withoutRunSettings() Sweep {
	c := *s
	c.Queues, c.Concurrency = Queues{}, 0
	c.Agents = slices.Clone(s.Agents)
	for i := range c.Agents {
		c.Agents[i].Concurrency, c.Agents[i].CredentialEnv, c.Agents[i].AuthHeader, c.Agents[i].AuthQuery, c.Agents[i].CAFile = 0, "", "", "", ""
	}
	return c
}

// Hash is the identity hash (digest.Identity) of Canonical.
func (s *Sweep) Hash() (string, error) {
	b, err := s.Canonical()
	if err != nil {
		return "", err
	}
	return digest.Identity(b), nil
}

// WorkflowID is the Temporal workflow id of the run of s.
func (s *Sweep) WorkflowID() (string, error) {
	h, err := s.Hash()
	if err != nil {
		return "", err
	}
	return "floorbench-sweep-" + h, nil
}
