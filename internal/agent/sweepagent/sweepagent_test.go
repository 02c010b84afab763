package sweepagent

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/harness"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/spec"
)

// agentsOf parses a spec of agents and normalises it, as a sweep does.
func agentsOf(t *testing.T, agents string) []spec.Agent {
	t.Helper()
	s, err := spec.Parse("s.yaml", []byte("agents:\n"+agents), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	s.Normalise()
	return s.Agents
}

const cleanAgent = "  - {name: bot, protocol: duplex, endpoint: 'ws://h/', scenarios: {preset: tiny-agent, seed: 1}}\n"

// A clean agent's trials keep the keys they had before acoustic
// conditions existed: the play hash is the hash of the same fields in
// the same layout, and the key is the one recorded here.
func TestCleanTrialKeysUnchanged(t *testing.T) {
	t.Parallel()
	a := agentsOf(t, cleanAgent)[0]
	o := HarnessOptions(a)
	before := keys.Agent(struct {
		Version                   int
		VAD                       agent.VAD
		Windows                   agent.Windows
		OnsetWait, Tail, Recovery float64
	}{harness.TrialVersion, o.VAD, o.Windows, o.OnsetWait, o.Tail, o.Recovery})
	if got := TrialPlayHash(a); got != before {
		t.Errorf("clean play hash %s, before acoustics %s", got, before)
	}
	// Recorded at TrialVersion 5: a bump of the version moves every key,
	// and this literal with it.
	const want = "trials/6d0e655f848ad2a7ed480d365db9b8e7/scenariohash/r2-90f2997cec2b080794b31e0c72eee5e9"
	if harness.TrialVersion != 5 {
		t.Fatalf("TrialVersion %d: record this test's key again", harness.TrialVersion)
	}
	if got := TrialKey(a, "scenariohash", 2); got != want {
		t.Errorf("clean trial key %s, want %s", got, want)
	}
}

// Two sweeps that differ only in their acoustic conditions play and
// store different trials: every condition its own keys, its own result
// key, and the same agent identity.
func TestAcousticsNameOtherTrials(t *testing.T) {
	t.Parallel()
	const head = "  - name: bot\n    protocol: duplex\n    endpoint: ws://h/\n    scenarios: {preset: tiny-agent, seed: 1}\n"
	agents := []spec.Agent{
		agentsOf(t, cleanAgent)[0],
		agentsOf(t, head+"    acoustics: {snr_db: 10}\n")[0],
		agentsOf(t, head+"    acoustics: {snr_db: 20}\n")[0],
		agentsOf(t, head+"    acoustics: {echo_db: -20}\n")[0],
		agentsOf(t, head+"    acoustics: {echo_db: -20, echo_delay_ms: 300}\n")[0],
		agentsOf(t, head+"    acoustics: {snr_db: 10, echo_db: -20}\n")[0],
	}
	seen := map[string]int{}
	for i, a := range agents {
		if Hash(a) != Hash(agents[0]) {
			t.Errorf("agent %d: acoustics changed the agent's identity", i)
		}
		if o := HarnessOptions(a); (a.Acoustics == nil) != o.Acoustics.Clean() || (a.Acoustics != nil && o.Acoustics != *a.Acoustics) {
			t.Errorf("agent %d: harness options' acoustics %+v, the spec's %+v", i, o.Acoustics, a.Acoustics)
		}
		key := TrialKey(a, "scenariohash", 0)
		if j, ok := seen[key]; ok {
			t.Errorf("agents %d and %d play under other acoustics to one key %s", j, i, key)
		}
		seen[key] = i
		if !strings.HasPrefix(key, "trials/"+Hash(a)+"/scenariohash/r0-") {
			t.Errorf("agent %d: key %s", i, key)
		}
	}
}
