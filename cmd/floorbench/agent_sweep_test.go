package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/agent/refagent"
	"github.com/floorbench/floorbench/internal/testenv"
)

// serveNeverYield serves the reference never-yield agent over duplex on
// 127.0.0.1 and returns its URL.
func serveNeverYield(t *testing.T) string {
	t.Helper()
	tts, err := refagent.EspeakTTS()
	if err != nil {
		if testenv.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ref, err := refagent.New(context.Background(), refagent.DefaultConfig(refagent.NeverYield), tts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ref.Handler("duplex", proto.ServerOptions{Rate: sweepAgentRate})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/"
}

// agentSweepSpec is a sweep of one agent at url on tiny-agent, each
// scenario once; extra is appended to the agent's settings.
func agentSweepSpec(url, extra string) string {
	return `name: agent-quickstart
agents:
  - name: never-yield
    protocol: duplex
    endpoint: ` + url + `
    rate: ` + fmt.Sprint(sweepAgentRate) + `
    repeats: 1
    scenarios: {preset: tiny-agent, seed: 1}
` + extra + `bootstrap: {resamples: 1000, seed: 1}
`
}

// quickstart -f on a spec with the reference agent runs its trials
// through a Temporal dev server and prints the agent table; submit
// --dry-run then finds every trial recorded and says how long the trials
// take at the agent's concurrency.
func TestQuickstartWithAnAgent(t *testing.T) {
	temporalTool(t)
	tmp := t.TempDir()
	spec := writeFile(t, tmp, "agent.yaml", agentSweepSpec(serveNeverYield(t), ""))
	store := filepath.Join(tmp, "store")
	stdout, stderr, code := run(t, "submit", "--dry-run", spec, "--store-dir", store)
	if code != 0 || !strings.Contains(stdout, "agent never-yield over duplex: 14 trials (14 scenarios of tiny-agent seed 1 x 1 repeats), 0 recorded; scenario set to generate") {
		t.Fatalf("dry run before: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "quickstart", "-f", spec, "--store-dir", store)
	if code != 0 {
		t.Fatalf("quickstart -f: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("\n%s", stdout)
	row := regexp.MustCompile(`(?m)^never-yield\s+duplex\s+[0-9.]+ \[[0-9.]+, [0-9.]+\]\s+0\.500 \[0\.500, 0\.500\]\s+\S+\s+-1\.000\s+.*\s14\s+0$`)
	if !strings.Contains(stdout, "Full-duplex agents") || !row.MatchString(stdout) {
		t.Errorf("no agent table with never-yield's STOP BA 0.500 and bias -1 in\n%s", stdout)
	}
	stdout, stderr, code = run(t, "submit", "--dry-run", spec, "--store-dir", store)
	after := regexp.MustCompile(`agent never-yield over duplex: 14 trials \(.*\), 14 recorded; all trials take at most \d+(m\d+)?s at concurrency 4, rate ` + fmt.Sprint(sweepAgentRate))
	if code != 0 || !after.MatchString(stdout) {
		t.Errorf("dry run after: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// A spec with a bad agent is one line naming the agent and what is wrong
// with it, before anything starts: an unknown protocol, a credential that
// is nowhere, an endpoint that refuses.
func TestAgentSpecBadInput(t *testing.T) {
	tmp := t.TempDir()
	refused := "ws://" + testenv.Addr(testenv.FreePort(t)) + "/"
	for _, c := range []struct {
		name, spec string
		commands   [][]string
		want       string
	}{
		{"unknown protocol", strings.Replace(agentSweepSpec(refused, ""), "protocol: duplex", "protocol: sip", 1),
			[][]string{{"quickstart", "-f"}, {"submit", "--dry-run"}}, `agents[0] (never-yield).protocol: unknown agent protocol "sip" (known: duplex, gemini-live, moshi, realtime)`},
		{"missing credential", agentSweepSpec(refused, "    credential_env: FLOORBENCH_TEST_NO_SUCH_KEY\n"),
			[][]string{{"quickstart", "-f"}, {"submit", "--dry-run"}}, "agents[0] (never-yield).credential_env: environment variable FLOORBENCH_TEST_NO_SUCH_KEY is not set"},
		{"refusing endpoint", agentSweepSpec(refused, ""), [][]string{{"quickstart", "-f"}}, "agents[0] (never-yield): "},
		{"noise at NaN dB", agentSweepSpec(refused, "    acoustics: {snr_db: .nan}\n"),
			[][]string{{"quickstart", "-f"}, {"submit", "--dry-run"}}, "noise-at-NaN-dB.yaml: agents[0] (never-yield).acoustics.snr_db: NaN (want -10 to 60 dB)"},
	} {
		spec := writeFile(t, tmp, strings.ReplaceAll(c.name, " ", "-")+".yaml", c.spec)
		for _, command := range c.commands {
			store := filepath.Join(tmp, "store-"+command[0])
			stdout, stderr, code := run(t, append(command, spec, "--store-dir", store, "--temporal-address", "127.0.0.1:1")...)
			if code == 0 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("%s: %v: exit %d, stdout %q, stderr %q", c.name, command, code, stdout, stderr)
			}
		}
	}
}
