package main

import (
	"encoding/json"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/testenv"
)

func TestAgentScenariosCommand(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	testenv.Program(t, "flite", "speech")
	out := filepath.Join(t.TempDir(), "set")
	stdout, stderr, code := run(t, "agent", "scenarios", "--preset", "tiny-agent", "--seed", "3", "--out", out, "--jobs", "2", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var w writtenScenarios
	if err := json.Unmarshal([]byte(stdout), &w); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if w.Count != 14 || len(w.PerCondition) != 10 || w.PerCondition["stop-on-backchannel"] != 2 || len(w.ManifestSHA256) != 64 {
		t.Fatalf("%+v", w)
	}
	if _, err := agent.ReadSet(out); err != nil {
		t.Fatal(err)
	}
	// A folder with something in it is refused, and left as it was.
	stdout, stderr, code = run(t, "agent", "scenarios", "--preset", "tiny-agent", "--seed", "3", "--out", out)
	if code == 0 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "is not empty") {
		t.Fatalf("non-empty --out: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestAgentScenariosBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "set")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "huge-agent", "--seed", "1", "--out", out}, `unknown scenario preset "huge-agent"`},
		{[]string{"--preset", "tiny-agent", "--seed", "-1", "--out", out}, `--seed "-1"`},
	} {
		stdout, stderr, code := run(t, append([]string{"agent", "scenarios"}, c.args...)...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v left %s behind", c.args, out)
		}
	}
}

// agentRecordings writes two STOP trials of one agent: it stops 0.5 s
// after the interruption starts and talks through the backchannel.
func agentRecordings(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range []struct {
		id    string
		cond  agent.Condition
		kind  agent.StimulusKind
		until float64
	}{{"s-int", agent.StopOnInterruption, agent.Interruption, 4.5}, {"s-bc", agent.StopOnBackchannel, agent.Backchannel, 9}} {
		onset, start := 2.0, 4.0
		r := &agent.Recording{SchemaVersion: agent.RecordingSchemaVersion, ScenarioID: c.id, Condition: c.cond, Speakers: 3,
			Agent: "ref", Protocol: "duplex", Cue: 1.5, ValidUntil: 10, Samples: 10 * agent.SampleRate, Duration: 10,
			Stimulus: &agent.PlayedStimulus{Kind: c.kind, Speaker: 1, Delay: 2, Samples: 8000, Onset: &onset, Start: &start},
			Events:   []agent.ProviderEvent{}}
		out := make([]float32, r.Samples)
		for i := int(onset * agent.SampleRate); i < int(c.until*agent.SampleRate); i++ {
			out[i] = float32(0.1 * math.Sin(2*math.Pi*200*float64(i)/agent.SampleRate))
		}
		if err := agent.WriteRecording(dir, agent.TrialName("ref", c.id, 0), r, make([]float32, r.Samples), out); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Scoring stored recordings prints the agent table; other windows give
// other decisions from the same audio.
func TestAgentScoreCommand(t *testing.T) {
	dir := agentRecordings(t)
	stdout, stderr, code := run(t, "agent", "score", "--recordings", dir, "--bootstrap", "100")
	if code != 0 || !strings.Contains(stdout, "Full-duplex agents\n") || !strings.Contains(stdout, "1 yielded") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		window string
		recall float64
	}{{"2", 1}, {"0.4", 0}} {
		stdout, stderr, code = run(t, "agent", "score", "--recordings", dir, "--yield-window", c.window, "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var res agent.Results
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		if got := float64(res.Agents[0].Stop.Recall); got != c.recall || res.Params.Windows.Yield != mustFloat(t, c.window) {
			t.Errorf("--yield-window %s: STOP recall %v (want %v), params %+v", c.window, got, c.recall, res.Params.Windows)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAgentScoreBadInput(t *testing.T) {
	dir := agentRecordings(t)
	bad := filepath.Join(dir, agent.TrialName("ref", "s-bc", 0), agent.RecordingName)
	data, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), `"repeat": 0`, `"repeat": -2`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--recordings", dir}, bad + ": repeat -2"},
		{[]string{"--recordings", t.TempDir()}, "no recordings"},
		{[]string{"--recordings", dir, "--yield-window", "-1"}, "window yield_s -1"},
		{[]string{"--recordings", dir, "--vad-off-dbfs", "-10"}, "vad off_dbfs -10"},
	} {
		stdout, stderr, code := run(t, append([]string{"agent", "score"}, c.args...)...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
	}
}

// `agent run` refuses an unknown protocol, a missing credential and an
// endpoint that refuses in one line, before any trial, leaving nothing.
func TestAgentRunBadInput(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	testenv.Program(t, "flite", "speech")
	set := filepath.Join(t.TempDir(), "set")
	if _, stderr, code := run(t, "agent", "scenarios", "--preset", "tiny-agent", "--seed", "2", "--out", set); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(t.TempDir(), "runs")
	refused := "ws://" + testenv.Addr(testenv.FreePort(t)) + "/"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--protocol", "carrier-pigeon", "--endpoint", refused}, `unknown agent protocol "carrier-pigeon"`},
		{[]string{"--protocol", "realtime", "--endpoint", refused, "--credential-env", "FLOORBENCH_TEST_UNSET_KEY"}, "FLOORBENCH_TEST_UNSET_KEY is not set"},
		{[]string{"--protocol", "duplex", "--endpoint", refused}, "agent a:"},
	} {
		args := append([]string{"agent", "run", "--scenarios", set, "--agent", "a", "--out", out}, c.args...)
		stdout, stderr, code := run(t, args...)
		if code == 0 || stdout != "" || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v left %s behind", c.args, out)
		}
	}
}

// An agent that opens each session and then closes it with its
// credential in the close reason: `agent run` records every trial as
// failed, exits non-zero saying so, and the credential is in no line of
// stderr and no file of the recordings.
func TestAgentRunWhoseEveryTrialFails(t *testing.T) {
	testenv.Program(t, "espeak-ng", "speech")
	testenv.Program(t, "flite", "speech")
	const key = "sk-probe-agentrun-5d1f"
	set := filepath.Join(t.TempDir(), "set")
	if _, stderr, code := run(t, "agent", "scenarios", "--preset", "tiny-agent", "--seed", "2", "--out", set); code != 0 {
		t.Fatal(stderr)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.Read(r.Context())
		c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"hello","protocol":"floorbench-duplex","version":1,"sample_rate":16000,"channels":1,"encoding":"pcm_s16le","frame_ms":20}`))
		c.Close(websocket.StatusPolicyViolation, "bad key "+key)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "runs")
	stdout, stderr, code, _ := runWith(t, []string{"AGENT_KEY=" + key}, "agent", "run", "--scenarios", set, "--agent", "a", "--out", out,
		"--protocol", "duplex", "--endpoint", "ws"+strings.TrimPrefix(srv.URL, "http"), "--credential-env", "AGENT_KEY",
		"--repeats", "1", "--retries", "0", "--rate", "20")
	if code == 0 || stdout != "" || !strings.Contains(stderr, "every trial failed") || !strings.Contains(stderr, "closed the connection") {
		t.Errorf("exit %d, stdout %q, stderr %q; want an error saying every trial failed", code, stdout, stderr)
	}
	if strings.Contains(stderr, key) {
		t.Errorf("stderr shows the credential: %s", stderr)
	}
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), key) || strings.Contains(string(data), "5d1f") {
				t.Errorf("%s holds the credential", path)
			}
		}
		return nil
	})
}
