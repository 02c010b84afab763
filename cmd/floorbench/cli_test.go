package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// binary is the floorbench command built once, as scripts/build.sh
// builds it (the front, floorbench-full beside it), for the tests that
// check exit codes and what reaches stdout and stderr.
var binary string

// maxrss runs a command and reports its own peak RSS (testdata/maxrss): a
// command started by the test process itself would report at least the
// test process's size.
var maxrss string

// tempRoot holds what the tests share (the tiny corpus).
var tempRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "floorbench-cli")
	if err != nil {
		panic(err)
	}
	tempRoot = dir
	bin, err := testenv.BuildWith("../../scripts/build.sh")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(bin, "floorbench")
	if maxrss, err = testenv.Build("./testdata/maxrss"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes the floorbench binary and returns stdout, stderr, exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	stdout, stderr, code, _ := runWith(t, nil, args...)
	return stdout, stderr, code
}

// runWith executes the floorbench binary with extra environment variables
// and returns stdout, stderr, the exit code and the peak resident memory
// in bytes.
func runWith(t *testing.T, env []string, args ...string) (string, string, int, int64) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "maxrss")
	cmd := exec.Command(maxrss, append([]string{binary}, args...)...)
	cmd.Env = append(append(os.Environ(), env...), "MAXRSS_FILE="+report)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("maxrss: %v; stderr %q", err, stderr.String())
	}
	rss, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		t.Fatalf("maxrss report %q: %v", data, err)
	}
	return stdout.String(), stderr.String(), code, rss
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const cliGold = `{"tau_pre_s": 0.25, "tau_max_s": 3.0, "conversations": {"c1": {"duration_s": 30.0, "eot_positive_events": [{"speaker": 1, "time_s": 5.0}], "eot_negative_spans": [{"speaker": 2, "start": 8.0, "end": 9.0}], "int_positive_events": [{"speaker": 2, "time_s": 12.0}], "int_negative_spans": [], "eot_excluded": [], "int_excluded": []}, "c2": {"duration_s": 20.0, "eot_positive_events": [], "eot_negative_spans": [], "int_positive_events": [], "int_negative_spans": [], "eot_excluded": [], "int_excluded": []}}}`

func TestInvalidSubmissionsFailWithOneLine(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", cliGold)
	entry := func(c1s2eot string) string {
		return `{"schema_version": 1, "predictions": [{"conversation_id": "c1", "speaker_1": {"eot": [5.1], "interruption": []}, "speaker_2": {"eot": ` + c1s2eot + `, "interruption": [12.1]}}, {"conversation_id": "c2", "speaker_1": {"eot": [], "interruption": []}, "speaker_2": {"eot": [], "interruption": []}}]}`
	}
	cases := []struct{ name, submission, want string }{
		{"non-increasing", entry("[3, 3]"), `p.json: conversation "c1" speaker_2 eot[1]: time 3 is not after the previous time 3 (times must be strictly increasing)`},
		{"NaN", entry("[1, NaN]"), `p.json: conversation "c1" speaker_2 eot[1]: time NaN is not finite`},
		{"Infinity", entry("[Infinity]"), `p.json: conversation "c1" speaker_2 eot[0]: time +Inf is not finite`},
		{"negative", entry("[-1]"), `p.json: conversation "c1" speaker_2 eot[0]: time -1 is outside [0, 30]`},
		{"past duration", entry("[31]"), `p.json: conversation "c1" speaker_2 eot[0]: time 31 is outside [0, 30]`},
		{"wrong type", entry(`["7"]`), `p.json: conversation "c1" speaker_2 eot[0]: line 1 col 136: expected number, found string`},
		{"missing conversation", `{"schema_version": 1, "predictions": [{"conversation_id": "c1", "speaker_1": {"eot": [], "interruption": []}, "speaker_2": {"eot": [], "interruption": []}}]}`, `p.json: conversation "c2": missing (every gold conversation must appear once)`},
		{"duplicate conversation", strings.Replace(entry("[]"), `"c2"`, `"c1"`, 1), `p.json: conversation "c1": appears more than once`},
		{"unknown conversation", strings.Replace(entry("[]"), `"c2"`, `"c9"`, 1), `p.json: conversation "c9": not in the gold`},
		{"unknown key", strings.Replace(entry("[]"), `"schema_version": 1`, `"schema_version": 1, "team": "x"`, 1), `p.json: unknown key "team"`},
		{"schema version", strings.Replace(entry("[]"), `"schema_version": 1`, `"schema_version": 2`, 1), `p.json: schema_version: unsupported version 2 (want 1)`},
		{"duplicate key", strings.Replace(entry("[]"), `"schema_version": 1`, `"schema_version": 1, "schema_version": 1`, 1), `p.json: line 1 col 23: duplicate key "schema_version"`},
		{"truncated", entry("[]")[:60], `p.json: predictions[0].conversation_id: line 1 col 59: unterminated string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pred := writeFile(t, dir, "p.json", c.submission)
			stdout, stderr, code := run(t, "score", "--gold", gold, "--predictions", pred)
			want := "floorbench: " + strings.Replace(c.want, "p.json", pred, 1) + "\n"
			if code == 0 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
			}
		})
	}
}

func TestScoreJSONShape(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", cliGold)
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": [{"conversation_id": "c1", "speaker_1": {"eot": [5.5], "interruption": []}, "speaker_2": {"eot": [8.5], "interruption": [12.25]}}, {"conversation_id": "c2", "speaker_1": {"eot": [], "interruption": []}, "speaker_2": {"eot": [], "interruption": []}}]}`)
	attrs := writeFile(t, dir, "attrs.json", `{"c1": {"speakers": 2, "type": "casual"}, "c2": {"speakers": 3, "type": "casual"}}`)
	stdout, stderr, code := run(t, "score", "--gold", gold, "--predictions", pred, "-o", "json", "--bootstrap", "200", "--seed", "3",
		"--attributes", attrs, "--by", "speakers,type")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "score.json", stdout)
	stdout, stderr, code = run(t, "score", "--gold", gold, "--predictions", pred, "--attributes", attrs, "--by", "snr")
	if want := "floorbench: " + attrs + `: conversation "c1" has no attribute "snr"` + "\n"; code == 0 || stdout != "" || stderr != want {
		t.Errorf("missing attribute: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// leaderboardFixture writes dev and test gold and, per system, dev and test
// EOT probability files: "oracle" rises right at every anchor, "noisy" fires
// at random, "late" rises 2 s after every anchor.
func leaderboardFixture(t *testing.T, dir string) (devGold, testGold string, systems []string) {
	rng := rand.New(rand.NewPCG(21, 21))
	makeSplit := func(name string, n int) (*floor.GoldSet, string) {
		g := &floor.GoldSet{TauPre: 0.25, TauMax: 3}
		for i := range n {
			c := floor.ConversationGold{ID: fmt.Sprintf("%s%02d", name, i), Duration: 60}
			for t := 3.0; t < 55; t += 4 + rng.Float64()*3 {
				if rng.IntN(3) == 0 {
					c.EOT.Negatives = append(c.EOT.Negatives, floor.Span{Speaker: 1 + rng.IntN(2), Start: t, End: t + 0.6})
				} else {
					c.EOT.Positives = append(c.EOT.Positives, floor.Anchor{Speaker: 1 + rng.IntN(2), Time: t})
				}
			}
			g.Conversations = append(g.Conversations, c)
		}
		var buf bytes.Buffer
		if err := floor.WriteGoldSet(&buf, g); err != nil {
			t.Fatal(err)
		}
		return g, writeFile(t, dir, name+"-gold.json", buf.String())
	}
	dg, devGold := makeSplit("dev", 6)
	tg, testGold := makeSplit("test", 12)
	for _, sys := range []string{"oracle", "noisy", "late"} {
		var files []string
		for _, g := range []*floor.GoldSet{dg, tg} {
			p := &score.ProbsFile{Task: floor.TaskEOT, FrameRate: 10}
			for _, c := range g.Conversations {
				cp := score.ConversationProbs{ID: c.ID, Speakers: [][]float64{make([]float64, 600), make([]float64, 600)}}
				for _, a := range c.EOT.Positives {
					delay := map[string]float64{"oracle": 0, "late": 2, "noisy": 0}[sys]
					i := int((a.Time + delay) * 10)
					cp.Speakers[a.Speaker-1][i] = 0.9
				}
				if sys == "noisy" {
					for k := range cp.Speakers {
						for i := range cp.Speakers[k] {
							if rng.IntN(15) == 0 {
								cp.Speakers[k][i] = 0.3 + rng.Float64()*0.7
							}
						}
					}
				}
				p.Conversations = append(p.Conversations, cp)
			}
			var buf bytes.Buffer
			if err := score.WriteProbs(&buf, p); err != nil {
				t.Fatal(err)
			}
			files = append(files, writeFile(t, dir, fmt.Sprintf("%s-%d.json", sys, len(files)), buf.String()))
		}
		systems = append(systems, "--system", sys+"="+files[0]+","+files[1])
	}
	return devGold, testGold, systems
}

func TestLeaderboardFormats(t *testing.T) {
	dir := t.TempDir()
	devGold, testGold, systems := leaderboardFixture(t, dir)
	for _, format := range []string{"text", "md", "csv", "latex", "json"} {
		args := append([]string{"leaderboard", "--dev-gold", devGold, "--test-gold", testGold, "--bootstrap", "500", "--seed", "1", "-o", format}, systems...)
		stdout, stderr, code := run(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		golden(t, "leaderboard."+format, stdout)
	}
	// --format, -o's old name here, still works, with a note on stderr.
	args := append([]string{"leaderboard", "--dev-gold", devGold, "--test-gold", testGold, "--bootstrap", "500", "--seed", "1", "--format", "md"}, systems...)
	stdout, stderr, code := run(t, args...)
	want, _ := os.ReadFile(filepath.Join("testdata", "leaderboard.md.golden"))
	if code != 0 || stdout != string(want) || stderr != "Flag --format has been deprecated, use -o\n" {
		t.Errorf("--format md: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/floorbench -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func TestSubmitErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	good := "corpora: [{name: tiny, generate: {preset: tiny, seed: 1}}]\nsystems: [{name: r, builtin: rms}]\n"
	cases := []struct{ name, spec, flag, want string }{
		{"empty spec", "", "", "empty spec"},
		{"no corpora", "corpora: []\nsystems: [{name: r, builtin: rms}]\n", "", "corpora: at least one corpus is needed"},
		{"unknown field", good + "bogus: 1\n", "", `unknown key "bogus"`},
		{"unknown system", strings.Replace(good, "builtin: rms", "builtin: nope", 1), "", "systems[0] (r): "},
		{"missing corpus folder", strings.Replace(good, "generate: {preset: tiny, seed: 1}", "path: "+dir+"/none", 1), "", "corpora[0] (tiny): "},
		{"unreachable Temporal", good, "--temporal-address=127.0.0.1:1", "cannot reach Temporal at 127.0.0.1:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, dir, "spec.yaml", c.spec)
			args := []string{"submit", "-f", path, "--config", ""}
			if c.flag != "" {
				args = append(args, c.flag)
			}
			stdout, stderr, code := run(t, args...)
			if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q, want one line containing %q", code, stdout, stderr, c.want)
			}
		})
	}
}

// --version prints the code version corpora and bundles record: the
// revision go build embeds in a checkout, never "(devel)".
func TestVersionFlag(t *testing.T) {
	stdout, stderr, code := run(t, "--version")
	line := strings.TrimSpace(stdout)
	if code != 0 || stderr != "" || !strings.HasPrefix(line, "floorbench ") || strings.Contains(line, "devel") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if len(line) < len("floorbench ")+7 {
		t.Fatalf("--version names no code: %q", line)
	}
}

// temporalTool is the setup's Temporal CLI, for a test that starts a real
// dev server; such tests skip with -short (scripts/test.sh runs them
// whole without the race detector).
func temporalTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("a real Temporal dev server: skipped with -short")
	}
	return testenv.Tool(t, "temporal", "temporal")
}

// --negative-window picks the window fp and tn count under; the result
// gives fp_rate under both whatever it is. A fire 0.5 s after the hold
// [8, 9] ends is free under span and charged under anchored. A bad window
// or budget list is one line.
func TestScoreNegativeWindow(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", cliGold)
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": [{"conversation_id": "c1", "speaker_1": {"eot": [5.5], "interruption": []}, "speaker_2": {"eot": [9.5], "interruption": [12.25]}}, {"conversation_id": "c2", "speaker_1": {"eot": [], "interruption": []}, "speaker_2": {"eot": [], "interruption": []}}]}`)
	type result struct {
		Params struct {
			Window  string `json:"negative_window"`
			Budgets []int  `json:"latency_budgets_ms"`
		} `json:"params"`
		EOT report.TaskMetrics `json:"eot"`
	}
	for _, c := range []struct {
		window string
		fp     int
	}{{"span", 0}, {"anchored", 1}} {
		stdout, stderr, code := run(t, "score", "--gold", gold, "--predictions", pred, "-o", "json", "--negative-window", c.window, "--latency-budgets", "400,600")
		var r result
		if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil {
			t.Fatalf("%s: exit %d %s", c.window, code, stderr)
		}
		w := r.EOT.FPRateByWindow
		if r.Params.Window != c.window || r.EOT.FP != c.fp || w.Span.FP != 0 || w.Anchored.FP != 1 ||
			!slices.Equal(r.Params.Budgets, []int{400, 600}) || r.EOT.RecallWithinMS.At(400) != 0 || r.EOT.RecallWithinMS.At(600) != 1 {
			t.Errorf("%s: %+v", c.window, r)
		}
	}
	for args, want := range map[string]string{
		"--negative-window=wide":    `floorbench: invalid argument "wide" for "--negative-window" flag: "wide" is not a negative window (want span or anchored)`,
		"--latency-budgets=500,250": "floorbench: protocol parameter latency_budgets_ms: budgets must be strictly ascending, got 250 after 500",
	} {
		stdout, stderr, code := run(t, "score", "--gold", gold, "--predictions", pred, args)
		if code == 0 || stdout != "" || strings.TrimSpace(stderr) != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want %q", args, code, stdout, stderr, want)
		}
	}
}
