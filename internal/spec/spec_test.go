package spec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
	"go.yaml.in/yaml/v3"
)

const example = `
name: nightly
corpora:
  - name: mptb-tiny
    generate: {preset: tiny, seed: 7}
systems:
  - name: rms
    builtin: rms
  - name: vad2
    builtin: webrtcvad
    params: {mode: "2"}
bootstrap: {resamples: 1000, seed: 3}
`

func TestParseAndNormalise(t *testing.T) {
	t.Parallel()
	s, err := Parse("s.yaml", []byte(example), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if s.Params().FPBudgetDev != 0.10 || s.Resamples() != 1000 {
		t.Errorf("defaults: %+v %d", s.Params(), s.Resamples())
	}
	s.Normalise()
	if s.Queues.GPU != QueueGPU || s.Concurrency != DefaultConcurrency {
		t.Errorf("normalised %+v", s)
	}
	// The same run written differently (explicit defaults, other order of
	// params keys) hashes the same.
	explicit := strings.Replace(example, "bootstrap:", "protocol: {fp_budget_dev: 0.1, n_quantiles: 512}\nqueues: {gpu: floorbench-gpu}\nbootstrap:", 1)
	s2, err := Parse("s2.yaml", []byte(explicit), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s2.Normalise()
	h1, _ := s.Hash()
	h2, _ := s2.Hash()
	if h1 != h2 {
		t.Errorf("equivalent specs hash differently:\n%s\n%s", mustCanonical(s), mustCanonical(s2))
	}
	s2.Bootstrap.Seed = 4
	if h3, _ := s2.Hash(); h3 == h1 {
		t.Error("a different seed must change the hash")
	}
	if id, _ := s.WorkflowID(); !strings.HasPrefix(id, "floorbench-sweep-") || len(id) != len("floorbench-sweep-")+32 {
		t.Errorf("workflow id %q", id)
	}
}

// Task queues and concurrency (the sweep's and each agent's) and an
// agent's credential say how a run runs: the same sweep with others is the
// same run, while the workers still receive them.
func TestRunSettingsAreNotIdentity(t *testing.T) {
	t.Parallel()
	base, err := Parse("a.yaml", []byte(agentExample), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(agentExample, "agents:", "queues: {cpu: lab-cpu, gpu: lab-gpu, synth: lab-synth}\nconcurrency: 7\nagents:", 1)
	moved = strings.Replace(moved, "credential_env: AGENT_KEY\n    concurrency: 8", "credential_env: OTHER_KEY\n    auth_header: X-Key\n    concurrency: 2", 1)
	other, err := Parse("b.yaml", []byte(moved), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	base.Normalise()
	other.Normalise()
	if other.Queues.CPU != "lab-cpu" || other.Concurrency != 7 || other.Agents[1].Concurrency != 2 || other.Agents[1].CredentialEnv != "OTHER_KEY" {
		t.Fatalf("the run settings did not parse: %+v", other)
	}
	id1, err1 := base.WorkflowID()
	id2, err2 := other.WorkflowID()
	if err1 != nil || err2 != nil || id1 != id2 {
		t.Errorf("workflow ids %s and %s (%v, %v):\n%s\n%s", id1, id2, err1, err2, mustCanonical(base), mustCanonical(other))
	}
	payload, err := json.Marshal(other)
	if err != nil {
		t.Fatal(err)
	}
	var sent Sweep
	if err := json.Unmarshal(payload, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.Queues != other.Queues || sent.Concurrency != 7 || sent.Agents[1].Concurrency != 2 || sent.Agents[1].CredentialEnv != "OTHER_KEY" {
		t.Errorf("the workers would not receive the run settings: %s", payload)
	}
}

// The negative window and the latency budgets are protocol constants of
// the spec: defaults left out by normalisation (earlier sweeps keep their
// ids), given ones kept, and each changes the run's identity.
func TestNegativeWindowAndLatencyBudgets(t *testing.T) {
	t.Parallel()
	s, err := Parse("s.yaml", []byte(example), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Params(); p.NegativeWindow != score.SpanWindow || !slices.Equal(p.LatencyBudgetsMS, []int{250, 500, 1000}) {
		t.Errorf("defaults %+v", p)
	}
	s.Normalise()
	if c := mustCanonical(s); strings.Contains(c, "negative_window") || strings.Contains(c, "latency_budgets_ms") {
		t.Errorf("normalised spec %s: the defaults must stay out, so that earlier sweeps keep their ids", c)
	}
	h, _ := s.Hash()
	explicit := strings.Replace(example, "bootstrap:", "protocol: {negative_window: span, latency_budgets_ms: [250, 500, 1000]}\nbootstrap:", 1)
	s1, err := Parse("s1.yaml", []byte(explicit), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s1.Normalise()
	if h1, _ := s1.Hash(); h1 != h {
		t.Error("the defaults written out must hash as the defaults left out")
	}
	given := strings.Replace(example, "bootstrap:", "protocol: {negative_window: anchored, latency_budgets_ms: [100, 300]}\nbootstrap:", 1)
	s2, err := Parse("s2.yaml", []byte(given), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if p := s2.Params(); p.NegativeWindow != score.AnchoredWindow || !slices.Equal(p.LatencyBudgetsMS, []int{100, 300}) {
		t.Errorf("given %+v", p)
	}
	s2.Normalise()
	if h2, _ := s2.Hash(); h2 == h {
		t.Error("another negative window and budgets must change the hash")
	}
}

func mustCanonical(s *Sweep) string {
	b, _ := s.Canonical()
	return string(b)
}

// The backend keys of generate: are part of the spec and of its hash;
// left out, the spec hashes as it did before they existed.
func TestGenerateBackendKeys(t *testing.T) {
	t.Parallel()
	withChat := strings.Replace(example, "generate: {preset: tiny, seed: 7}",
		"generate: {preset: tiny, seed: 7, dialogue: openai-chat, dialogue_endpoint: 'http://127.0.0.1:8000/v1', dialogue_model: qwen2.5}", 1)
	s, err := Parse("s.yaml", []byte(withChat), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	g := s.Corpora[0].Generate
	if g.Dialogue != "openai-chat" || g.DialogueModel != "qwen2.5" || g.Preset != "tiny" {
		t.Fatalf("generate %+v", g)
	}
	plain, _ := Parse("s.yaml", []byte(example), limits.Default())
	if c := mustCanonical(plain); strings.Contains(c, "dialogue") || strings.Contains(c, "voices") {
		t.Fatalf("a spec without backends names them: %s", c)
	}
	plain.Normalise()
	h1, _ := plain.Hash()
	h2, _ := s.Hash()
	if h1 == h2 {
		t.Fatal("a dialogue backend keeps the spec's hash")
	}
	named, err := Parse("s.yaml", []byte(strings.Replace(example, "seed: 7}", "seed: 7, dialogue: templates, voices: offline}", 1)), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	named.Normalise()
	if h3, _ := named.Hash(); h3 != h1 {
		t.Fatal("naming the offline backends changed the spec's hash")
	}
}

func TestSpecErrorsNameTheField(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                         "s.yaml: empty spec",
		"corpora: []\nsystems: []": "s.yaml: corpora: at least one corpus is needed (or an agent, under agents)",
		"corpora:\n  - name: a\n    generate: {preset: tiny}\n    path: /x\nsystems: [{name: r, builtin: rms}]":                                                                            "s.yaml: corpora[0] (a): give exactly one of generate, path or s3",
		"corpora:\n  - name: ../a\n    path: /x\nsystems: [{name: r, builtin: rms}]":                                                                                                       `s.yaml: corpora[0].name: (not quoted) must be 1-64 letters, digits, '.', '_' or '-', not starting with '.' or '-'`,
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r, builtin: rms}, {name: r, builtin: silero}]":                                                                                   `s.yaml: systems[1].name: "r" is also the name of systems[0]`,
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r}]":                                                                                                                             "s.yaml: systems[0] (r): give exactly one of builtin or spec",
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r, builtin: rms}]\nprotocol: {tau_pre_s: -1}":                                                                                    "s.yaml: protocol: protocol parameter tau_pre_s must be finite and >= 0, got -1",
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r, builtin: rms}]\nprotocol: {negative_window: wide}":                                                                            `s.yaml: protocol: protocol parameter negative_window: "wide" is not a negative window (want span or anchored)`,
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r, builtin: rms}]\nprotocol: {latency_budgets_ms: [500, 250]}":                                                                   "s.yaml: protocol: protocol parameter latency_budgets_ms: budgets must be strictly ascending, got 250 after 500",
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r, builtin: rms}]\nbogus: 1":                                                                                                     `s.yaml: line 3: unknown key "bogus"`,
		"corpora: [{name: a, path: /x}]\nsystems: [{name: r, builtin: rms}]\nbootstrap: {resamples: many}":                                                                                 "s.yaml: line 3: want an integer, not a string",
		"corpora: [{name: a, path: /x, transfer_from: b}]\nsystems: [{name: r, builtin: rms}]":                                                                                             `s.yaml: corpora[0].transfer_from: "b" is not another corpus of this spec`,
		"corpora: [{name: a, s3: ../x}]\nsystems: [{name: r, builtin: rms}]":                                                                                                               `s.yaml: corpora[0].s3: store key "../x": segment ".." is not allowed (letters, digits, '.', '_', '-'; no empty, '.' or '..' segments)`,
		"corpora: [{name: a, generate: {preset: tiny, dialogue: openai-chat}}]\nsystems: [{name: r, builtin: rms}]":                                                                        "s.yaml: corpora[0].generate.dialogue_endpoint: missing",
		"corpora: [{name: a, generate: {preset: tiny, voices: openai-speech, voices_endpoint: 'http://h/v1', voices_model: k, voices_names: [a, b]}}]\nsystems: [{name: r, builtin: rms}]": "s.yaml: corpora[0].generate.voices_names: 2 voices; preset tiny needs 4 dev and 5 test voices: name at least 9",
	}
	for in, want := range cases {
		if _, err := Parse("s.yaml", []byte(in), limits.Default()); err == nil || err.Error() != want {
			t.Errorf("%q\n  error %v\n  want  %s", in, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	f.Add([]byte(agentExample))
	f.Add([]byte(seatedHead + "    seated: {corpora: [tb], speakers: [2, 1], tail_s: 1.5}\n"))
	f.Add([]byte(strings.Replace(example, "bootstrap:", "protocol: {negative_window: anchored, latency_budgets_ms: [100, 300]}\nbootstrap:", 1)))
	f.Add([]byte(strings.Replace(example, "bootstrap:", "protocol: {latency_budgets_ms: []}\nbootstrap:", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data, limits.Default())
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		s.Normalise()
		want, err := s.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		// The normalised spec written back as YAML is a spec that means
		// the same run.
		data, err = yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse("f.yaml", data, limits.Default())
		if err != nil {
			t.Fatalf("normalised spec does not read back: %v\n%s", err, data)
		}
		again.Normalise()
		if got, _ := again.Canonical(); !bytes.Equal(got, want) {
			t.Fatalf("round trip changed the run:\n%s\n%s", want, got)
		}
	})
}

// Check is what the worker runs on the spec it receives: normalised, with
// local paths gone and system specs inline. It applies the limits in
// force in the worker's process.
func TestCheckOnTheWorkersSide(t *testing.T) {
	t.Parallel()
	s, err := Parse("s.yaml", []byte("corpora: [{name: c, path: /data/c}]\nsystems: [{name: r, builtin: rms}]\nbootstrap: {resamples: 5000}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Corpora[0].Path, s.Corpora[0].Hash = "", "abc" // as it travels
	s.Normalise()
	if err := s.Check(limits.Default()); err != nil {
		t.Fatalf("a submitted spec fails the worker's check: %v", err)
	}
	l := limits.Default()
	l.Resamples, l.SpecBytes = 1000, 10
	if err := s.Check(l); err == nil || !strings.HasPrefix(err.Error(), "bootstrap.resamples: 5000 is over the limit of 1000") {
		t.Errorf("worker's lower limit: %v", err)
	}
	l.Resamples = 5000
	s.Systems[0].SpecYAML = "family: rms\nparams: {}\n"
	if err := s.Check(l); err == nil || !strings.HasPrefix(err.Error(), "systems[0] (r).spec: 23 bytes is over the limit of 10 bytes") {
		t.Errorf("system spec size: %v", err)
	}
}
