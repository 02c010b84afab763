package spec

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/limits"
)

const agentExample = `
name: agents
agents:
  - name: ref
    protocol: duplex
    endpoint: ws://127.0.0.1:8765/
    scenarios: {preset: tiny-agent, seed: 1}
  - name: rt
    protocol: realtime
    endpoint: wss://agent.example/v1/realtime
    model: gpt-realtime
    voice: alloy
    instructions: Be brief.
    turn_detection: semantic_vad
    credential_env: AGENT_KEY
    concurrency: 8
    rate: 1
    repeats: 2
    scenarios: {preset: mptb-agent, seed: 7}
`

// A spec may hold agents only; their defaults are filled on normalising
// and those that can change a number travel in the canonical spec.
func TestAgentsParseAndNormalise(t *testing.T) {
	t.Parallel()
	s, err := Parse("a.yaml", []byte(agentExample), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	ref, rt := s.Agents[0], s.Agents[1]
	if ref.Rate != 1 || ref.Concurrency != limits.DefaultAgentSessions || ref.Repeats != 3 {
		t.Errorf("defaults: rate %v, concurrency %d, repeats %d", ref.Rate, ref.Concurrency, ref.Repeats)
	}
	if rt.Concurrency != 8 || rt.Repeats != 2 || rt.Scenarios != (AgentScenarios{"mptb-agent", 7}) {
		t.Errorf("given settings lost: %+v", rt)
	}
	canonical := mustCanonical(s)
	if !strings.Contains(canonical, `"rate":1,`) || !strings.Contains(canonical, `"repeats":3}`) ||
		strings.Contains(canonical, "credential_env") || strings.Contains(canonical, "concurrency") {
		t.Errorf("canonical spec %s", canonical)
	}
}

// A gemini-live agent takes a model, a voice and instructions, and its
// credential in a query parameter; they reach the endpoint a harness dials.
func TestGeminiLiveAgentParses(t *testing.T) {
	t.Parallel()
	const in = "agents:\n  - name: gl\n    protocol: gemini-live\n    endpoint: wss://generativelanguage.googleapis.com/ws/x\n" +
		"    model: gemini-live-2.5-flash\n    voice: Puck\n    instructions: Be brief.\n    credential_env: GEMINI_API_KEY\n" +
		"    auth_query: key\n    scenarios: {preset: tiny-agent, seed: 1}\n"
	s, err := Parse("g.yaml", []byte(in), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	ep := s.Agents[0].ProtoEndpoint()
	if ep.Protocol != "gemini-live" || ep.AuthQuery != "key" || ep.Realtime.Model != "gemini-live-2.5-flash" || ep.Realtime.Voice != "Puck" || ep.Realtime.Instructions != "Be brief." {
		t.Errorf("endpoint %+v", ep)
	}
}

// A moshi agent takes its credential in moshi-server's auth_id query
// parameter, and no model, voice or instructions (Moshi's server has no
// session settings).
func TestMoshiAgentParses(t *testing.T) {
	t.Parallel()
	const in = "agents:\n  - name: m\n    protocol: moshi\n    endpoint: wss://moshi.example/api/chat\n" +
		"    credential_env: MOSHI_KEY\n    auth_query: auth_id\n    scenarios: {preset: tiny-agent, seed: 1}\n"
	s, err := Parse("m.yaml", []byte(in), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	if ep := s.Agents[0].ProtoEndpoint(); ep.Protocol != "moshi" || ep.AuthQuery != "auth_id" {
		t.Errorf("endpoint %+v", ep)
	}
	_, err = Parse("m.yaml", []byte(strings.Replace(in, "    auth_query", "    voice: v\n    auth_query", 1)), limits.Default())
	if want := "agents[0] (m).voice: only the realtime protocol takes it, not moshi"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a moshi agent with a voice: %v, want %q", err, want)
	}
}

// An agent's identity covers what can change what it does in a trial and
// nothing else: not its name, its concurrency or its credential.
func TestAgentIdentity(t *testing.T) {
	t.Parallel()
	s, err := Parse("a.yaml", []byte(agentExample), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	base := s.Agents[1]
	same := base
	same.Name, same.Concurrency, same.CredentialEnv, same.AuthHeader = "other", 1, "OTHER_KEY", "X-Key"
	if same.Identity() != base.Identity() {
		t.Errorf("name, concurrency or credential changed the identity")
	}
	for _, change := range []func(a *Agent){
		func(a *Agent) { a.Protocol = "duplex" },
		func(a *Agent) { a.Endpoint += "x" },
		func(a *Agent) { a.Model = "m2" },
		func(a *Agent) { a.Voice = "echo" },
		func(a *Agent) { a.Instructions = "Be long." },
		func(a *Agent) { a.TurnDetection = "server_vad" },
		func(a *Agent) { a.RealtimeAPI = "ga" },
		func(a *Agent) { a.Rate = 2 },
	} {
		other := base
		change(&other)
		if other.Identity() == base.Identity() {
			t.Errorf("%+v has the identity of %+v", other.Identity(), base.Identity())
		}
	}
	zero := base
	zero.Rate = 0
	if zero.Identity() != base.Identity() {
		t.Error("rate 0 (the default) and rate 1 are different identities")
	}
}

// Every bad agent setting is one line naming the agent, the field and the
// value, before anything runs.
func TestAgentErrorsNameTheField(t *testing.T) {
	t.Parallel()
	const head = "agents:\n  - name: bot\n    scenarios: {preset: tiny-agent}\n"
	cases := map[string]string{
		"    protocol: sip\n    endpoint: ws://h/":                                                      `agents[0] (bot).protocol: unknown agent protocol "sip" (known: duplex, gemini-live, moshi, realtime)`,
		"    protocol: duplex":                                                                          `agents[0] (bot).endpoint: missing (want a ws:// or wss:// URL)`,
		"    protocol: duplex\n    endpoint: http://h/x?key=secret":                                     `agents[0] (bot).endpoint: "http://h/x": want a ws:// or wss:// URL`,
		"    protocol: duplex\n    endpoint: ws://user:pw@h/":                                           `agents[0] (bot).endpoint: "ws://h/": has user information; give the credential with credential_env instead`,
		"    protocol: duplex\n    endpoint: ws://h/\n    voice: alloy":                                 `agents[0] (bot).voice: only the realtime protocol takes it, not duplex`,
		"    protocol: realtime\n    endpoint: ws://h/\n    turn_detection: x":                          `agents[0] (bot).turn_detection: realtime turn_detection "x": want server_vad, semantic_vad or none`,
		"    protocol: duplex\n    endpoint: ws://h/\n    rate: 100":                                    `agents[0] (bot).rate: playback rate 100: must be above 0 and at most 50`,
		"    protocol: duplex\n    endpoint: ws://h/\n    concurrency: -1":                              `agents[0] (bot).concurrency: -1 (want 1 to 256; 0 is 4)`,
		"    protocol: duplex\n    endpoint: ws://h/\n    repeats: 1000":                                `agents[0] (bot).repeats: 1000 (want 1 to 100; 0 is 3)`,
		"    protocol: duplex\n    endpoint: ws://h/\n    credential_env: A-B":                          `agents[0] (bot).credential_env: "A-B" is not an environment variable name (letters, digits and _, not starting with a digit)`,
		"    protocol: gemini-live\n    endpoint: ws://h/\n    turn_detection: none":                    `agents[0] (bot).turn_detection: only the realtime protocol takes it, not gemini-live`,
		"    protocol: gemini-live\n    endpoint: ws://h/\n    auth_query: 'k y'":                       `agents[0] (bot).auth_query: "k y" is not a query parameter name (letters, digits, _, . and -)`,
		"    protocol: gemini-live\n    endpoint: ws://h/\n    auth_query: key\n    auth_header: X-Key": `agents[0] (bot).auth_query: and auth_header both set: the credential goes in one of them`,
	}
	for body, want := range cases {
		if _, err := Parse("s.yaml", []byte(head+body), limits.Default()); err == nil || err.Error() != "s.yaml: "+want {
			t.Errorf("%q\n  error %v\n  want  s.yaml: %s", body, err, want)
		}
	}
	for in, want := range map[string]string{
		"agents:\n  - {name: bot, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: huge}}":                                                                                            `agents[0] (bot).scenarios.preset: "huge" (want one of mptb-agent, tiny-agent; an agent with seated: may have no scenarios)`,
		"agents:\n  - {name: a, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: tiny-agent}}\n  - {name: a, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: tiny-agent}}": `agents[1].name: "a" is also the name of agents[0]`,
		"systems: [{name: r, builtin: rms}]\nagents:\n  - {name: a, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: tiny-agent}}":                                                    "corpora: at least one corpus is needed to evaluate the systems on",
	} {
		if _, err := Parse("s.yaml", []byte(in), limits.Default()); err == nil || err.Error() != "s.yaml: "+want {
			t.Errorf("%q\n  error %v\n  want  s.yaml: %s", in, err, want)
		}
	}
}

const seatedHead = "corpora:\n  - {name: tiny, generate: {preset: tiny, seed: 1}}\n  - {name: tb, s3: corpora/tb}\n" +
	"systems: [{name: rms, builtin: rms}]\nagents:\n  - name: bot\n    protocol: duplex\n    endpoint: ws://h/\n"

// A seated agent needs no scenario set; its defaults (every corpus, every
// speaker, the tail) are filled on normalising, and it keeps the spec's
// identity of an agent that is not seated.
func TestSeatedAgentParsesAndNormalises(t *testing.T) {
	t.Parallel()
	s, err := Parse("s.yaml", []byte(seatedHead+"    seated: {speakers: [2, 1]}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	a := s.Agents[0]
	if a.HasTrials() || a.Seated == nil {
		t.Fatalf("agent %+v: want seated, without trials", a)
	}
	got := *a.Seated
	if !slices.Equal(got.Corpora, []string{"tiny", "tb"}) || !slices.Equal(got.Speakers, []int{1, 2}) || got.TailS != limits.DefaultSeatTailS {
		t.Errorf("seated %+v: want every corpus, speakers 1 and 2, tail %g", got, limits.DefaultSeatTailS)
	}
	if !strings.Contains(mustCanonical(s), `"seated":{"corpora":["tiny","tb"],"speakers":[1,2],"tail_s":0.5}`) {
		t.Errorf("canonical spec %s", mustCanonical(s))
	}
	plain, err := Parse("a.yaml", []byte(agentExample), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	plain.Normalise()
	if strings.Contains(mustCanonical(plain), "seated") {
		t.Errorf("an agent that is not seated has seated in its canonical spec: %s", mustCanonical(plain))
	}
}

// Every bad seated setting is one line naming the agent, the field and the
// value.
func TestSeatedErrorsNameTheField(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"    seated: {corpora: [ami]}":             `agents[0] (bot).seated.corpora[0]: "ami" is not a corpus of this spec`,
		"    seated: {corpora: [tb, tb]}":          `agents[0] (bot).seated.corpora[1]: "tb" twice`,
		"    seated: {speakers: [0]}":              `agents[0] (bot).seated.speakers[0]: 0 (want a speaker number from 1 to 16)`,
		"    seated: {speakers: [2, 2]}":           `agents[0] (bot).seated.speakers[1]: speaker 2 twice`,
		"    seated: {tail_s: 11}":                 `agents[0] (bot).seated.tail_s: 11 (want 0 to 10 seconds; 0 is 0.5)`,
		"    seated: {}\n    name: rms":            `agents[0].name: "rms" is also the name of systems[0]; a seated agent is ranked beside the systems`,
		"    scenarios: {seed: 2}\n    seated: {}": `agents[0] (bot).scenarios.preset: "" (want one of mptb-agent, tiny-agent; an agent with seated: may have no scenarios)`,
	} {
		in := seatedHead + body + "\n"
		if strings.Contains(body, "name: rms") {
			in = strings.Replace(seatedHead, "  - name: bot\n", "  -\n", 1) + body + "\n"
		}
		if _, err := Parse("s.yaml", []byte(in), limits.Default()); err == nil || err.Error() != "s.yaml: "+want {
			t.Errorf("%q\n  error %v\n  want  s.yaml: %s", body, err, want)
		}
	}
	agentsOnly := "agents:\n  - {name: bot, protocol: duplex, endpoint: 'ws://h/', seated: {}}\n"
	want := "s.yaml: agents[0] (bot).seated.corpora: the spec has no corpora to seat the agent in"
	if _, err := Parse("s.yaml", []byte(agentsOnly), limits.Default()); err == nil || err.Error() != want {
		t.Errorf("seated without corpora: %v, want %s", err, want)
	}
}

// The spec never holds a credential: the variable's value is not read
// here, so a spec parses the same with or without it set.
func TestAgentCredentialIsOnlyNamed(t *testing.T) {
	t.Setenv("AGENT_KEY", "sk-secret-value")
	s, err := Parse("a.yaml", []byte(agentExample), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	if strings.Contains(mustCanonical(s), "sk-secret-value") {
		t.Error("the credential's value is in the canonical spec")
	}
	os.Unsetenv("AGENT_KEY")
	if _, err := Parse("a.yaml", []byte(agentExample), limits.Default()); err != nil {
		t.Errorf("without the variable: %v", err)
	}
}

// An agent's acoustic conditions are checked where the spec is read, each
// error naming the file, the agent, the field and the value (NaN
// included); an echo without its delay takes the default delay, and a
// clean agent's canonical spec has no acoustics at all.
func TestAgentAcoustics(t *testing.T) {
	t.Parallel()
	const head = "agents:\n  - name: bot\n    protocol: duplex\n    endpoint: ws://h/\n"
	const trials = "    scenarios: {preset: tiny-agent}\n"
	for body, want := range map[string]string{
		trials + "    acoustics: {snr_db: .nan}":                   `agents[0] (bot).acoustics.snr_db: NaN (want -10 to 60 dB)`,
		trials + "    acoustics: {snr_db: 61}":                     `agents[0] (bot).acoustics.snr_db: 61 (want -10 to 60 dB)`,
		trials + "    acoustics: {echo_db: 3}":                     `agents[0] (bot).acoustics.echo_db: 3 (want -60 to 0 dB)`,
		trials + "    acoustics: {echo_db: .nan}":                  `agents[0] (bot).acoustics.echo_db: NaN (want -60 to 0 dB)`,
		trials + "    acoustics: {echo_db: -20, echo_delay_ms: 5}": `agents[0] (bot).acoustics.echo_delay_ms: 5 (want 20 to 2000 ms)`,
		trials + "    acoustics: {echo_delay_ms: 200}":             `agents[0] (bot).acoustics.echo_delay_ms: 200 without echo_db`,
		"    seated: {}\n    acoustics: {snr_db: 10}":              `agents[0] (bot).acoustics: set on an agent without scenarios (they apply to its trials; seated sessions play the corpus as it is)`,
		trials + "    acoustics: {snr: 10}":                        `snr`,
	} {
		in := head + body + "\n"
		if strings.Contains(body, "seated") {
			in = "corpora: [{name: c, s3: corpora/c}]\nsystems: [{name: r, builtin: rms}]\n" + in
		}
		_, err := Parse("s.yaml", []byte(in), limits.Default())
		if err == nil || !strings.HasPrefix(err.Error(), "s.yaml: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q\n  error %v\n  want  s.yaml: %s", body, err, want)
		}
	}

	s, err := Parse("s.yaml", []byte(head+trials+"    acoustics: {snr_db: 10, echo_db: -20}\n"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	if ac := s.Agents[0].Acoustics; ac == nil || *ac.SNR != 10 || *ac.Echo != -20 || ac.EchoDelayMS != 200 {
		t.Errorf("normalised acoustics %+v", ac)
	}
	if err := s.Check(limits.Default()); err != nil {
		t.Errorf("a normalised spec fails its check again: %v", err)
	}
	if c := mustCanonical(s); !strings.Contains(c, `"acoustics":{"snr_db":10,"echo_db":-20,"echo_delay_ms":200}`) {
		t.Errorf("canonical spec %s", c)
	}
	for _, body := range []string{trials, trials + "    acoustics: {}\n"} {
		s, err := Parse("s.yaml", []byte(head+body), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		s.Normalise()
		if c := mustCanonical(s); s.Agents[0].Acoustics != nil || strings.Contains(c, "acoustics") {
			t.Errorf("%q: a clean agent's canonical spec %s", body, c)
		}
	}
}
