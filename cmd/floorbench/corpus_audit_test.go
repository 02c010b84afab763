package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

func TestCorpusAuditBadInputIsOneLine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{missing}, "floorbench: " + missing + ": no corpus.json: not a floorbench corpus (or its generation did not finish)"},
		{[]string{dir, "-o", "pdf"}, `floorbench: invalid argument "pdf" for "-o, --output" flag: want text, json, md, csv or latex`},
		{[]string{dir, "--split", "train"}, `floorbench: split "train" (want dev or test)`},
		{[]string{dir, "--int-shortcut-recall", "2"}, "floorbench: shortcut recall must be in [0, 1] (0: off), got 2"},
		{[]string{}, "floorbench: accepts 1 arg(s), received 0"},
	}
	for _, c := range cases {
		stdout, stderr, code := run(t, append([]string{"corpus", "audit"}, c.args...)...)
		if code == 0 || stdout != "" || strings.TrimSpace(stderr) != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

func TestCorpusAuditFlagsAShortcut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "corpus", "audit", dir, "--bootstrap", "100")
	if code != 0 || !strings.Contains(stdout, "\nSHORTCUT int (span window): overlap run length — fire once an overlapping run lasts ") {
		t.Fatalf("text: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stdout, _, code = run(t, "corpus", "audit", dir, "--bootstrap", "100", "-o", "md")
	if code != 0 || !strings.HasPrefix(stdout, "## Corpus audit: trivial rules\n") || !strings.Contains(stdout, "| overlap run length (SHORTCUT) | span |") {
		t.Fatalf("md: exit %d\n%s", code, stdout)
	}
	stdout, _, code = run(t, "corpus", "audit", dir, "--bootstrap", "100", "-o", "json")
	var r struct {
		SchemaVersion int                        `json:"schema_version"`
		Params        map[string]json.RawMessage `json:"params"`
		Tasks         []struct {
			Task      string                       `json:"task"`
			Best      string                       `json:"best"`
			Shortcuts []string                     `json:"shortcuts"`
			Features  []map[string]json.RawMessage `json:"features"`
		} `json:"tasks"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.SchemaVersion != 1 || len(r.Tasks) != 2 {
		t.Fatalf("json: exit %d\n%s", code, stdout)
	}
	if string(r.Params["eot_shortcut_recall"]) != "null" || string(r.Params["bootstrap_resamples"]) != "100" {
		t.Errorf("params %s", r.Params)
	}
	if in := r.Tasks[1]; in.Task != "int" || !slices.Contains(in.Shortcuts, "overlap_run_length") {
		t.Errorf("int task %+v", in)
	}
	var keys []string
	for k := range r.Tasks[1].Features[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"auc", "by_window", "cross_channel", "dev", "has_operating_point", "in_budget", "label", "n_candidates", "name", "oracle", "rule", "shortcut", "test", "theta", "unit", "value"}
	if !slices.Equal(keys, want) {
		t.Errorf("feature fields %v, want %v", keys, want)
	}
}

// Ingested corpora: TurnBench's unlabelled dialogue is skipped and counted
// and its labels have no word counts; AMI ingested as test only picks
// thresholds on test and says so.
func TestCorpusAuditOnIngestedCorpora(t *testing.T) {
	tmp := t.TempDir()
	tb, ami := ingestFixtures(t, tmp, 4, 30)
	stdout, stderr, code := run(t, "corpus", "audit", tb, "--bootstrap", "50")
	for _, want := range []string{"turnbench corpus, 2 dev and 2 test labelled conversations (1 unlabelled skipped)",
		"no word counts in the labels: the oracle-transcript word feature is skipped", "best int feature (span window): "} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("turnbench: exit %d, stdout lacks %q\n%s%s", code, want, stdout, stderr)
		}
	}
	stdout, stderr, code = run(t, "corpus", "audit", ami, "--bootstrap", "50")
	if code != 0 || !strings.Contains(stdout, "no labelled dev split: thresholds picked on test itself") {
		t.Errorf("ami: exit %d\n%s%s", code, stdout, stderr)
	}
}

// --tracks-out writes every rule's tracks as detect's probability files: a
// leaderboard over them scores a rule exactly as the audit did (the same
// threshold and test counts) and pairs it with another system. A second
// audit into the filled folder fails in one line and leaves it as it was.
func TestCorpusAuditTracksGoToALeaderboard(t *testing.T) {
	// A rule as the audit scores it and a system as a leaderboard does.
	type scored struct {
		Name   string          `json:"name"`
		System string          `json:"system"`
		Theta  float64         `json:"theta"`
		Test   json.RawMessage `json:"test"`
	}
	tmp := t.TempDir()
	dir, tracks := filepath.Join(tmp, "corpus"), filepath.Join(tmp, "tracks")
	if err := auditfixture.Write(dir, auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "corpus", "audit", dir, "--bootstrap", "100", "--tracks-out", tracks, "-o", "json")
	var audited struct {
		Tasks []struct {
			Task     string   `json:"task"`
			Features []scored `json:"features"`
		} `json:"tasks"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &audited) != nil {
		t.Fatalf("audit: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, task := range audited.Tasks {
		for _, f := range task.Features {
			for _, split := range []string{"dev", "test"} {
				p := filepath.Join(tracks, f.Name, split, "probs-"+task.Task+".json")
				if _, err := score.ReadProbs(p, limits.Default()); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
		}
	}
	gold := map[string]string{}
	for _, split := range []string{"dev", "test"} {
		out, stderr, code := run(t, "gold", "--corpus", dir, "--split", split, "-o", "json")
		gold[split] = filepath.Join(tmp, split+"-gold.json")
		if code != 0 || os.WriteFile(gold[split], []byte(out), 0o644) != nil {
			t.Fatalf("gold %s: exit %d %s", split, code, stderr)
		}
	}
	system := func(name string) string {
		return name + "=" + filepath.Join(tracks, name, "dev", "probs-int.json") + "," + filepath.Join(tracks, name, "test", "probs-int.json")
	}
	stdout, stderr, code = run(t, "leaderboard", "--dev-gold", gold["dev"], "--test-gold", gold["test"], "--bootstrap", "100",
		"--system", system("overlap_run_length"), "--system", system("energy"), "-o", "json")
	var lb struct {
		Tasks []struct {
			Rows   []scored `json:"rows"`
			Paired []struct {
				A string `json:"a"`
				B string `json:"b"`
			} `json:"paired"`
		} `json:"tasks"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &lb) != nil || len(lb.Tasks) != 1 {
		t.Fatalf("leaderboard: exit %d\n%s%s", code, stdout, stderr)
	}
	counts := func(raw json.RawMessage) (c struct{ TP, FN, FP, TN int }) {
		json.Unmarshal(raw, &c)
		return c
	}
	features, rows := audited.Tasks[1].Features, lb.Tasks[0].Rows
	i := slices.IndexFunc(features, func(f scored) bool { return f.Name == "overlap_run_length" })
	j := slices.IndexFunc(rows, func(r scored) bool { return r.System == "overlap_run_length" })
	if i < 0 || j < 0 {
		t.Fatalf("overlap_run_length: audit feature %d, leaderboard row %d", i, j)
	}
	rule, row := features[i], rows[j]
	if row.Theta != rule.Theta || counts(row.Test) != counts(rule.Test) || counts(row.Test).TP == 0 {
		t.Errorf("leaderboard row θ %v test %+v, audit θ %v test %+v", row.Theta, counts(row.Test), rule.Theta, counts(rule.Test))
	}
	if p := lb.Tasks[0].Paired; len(p) != 1 || p[0].A+p[0].B != "overlap_run_lengthenergy" && p[0].A+p[0].B != "energyoverlap_run_length" {
		t.Errorf("paired %+v", p)
	}
	before, _ := os.ReadDir(tmp)
	stdout, stderr, code = run(t, "corpus", "audit", dir, "--bootstrap", "0", "--tracks-out", tracks)
	after, _ := os.ReadDir(tmp)
	if code == 0 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tracks+": file already exists") || len(after) != len(before) {
		t.Errorf("into a filled folder: exit %d, stdout %q, stderr %q, %d entries then %d", code, stdout, stderr, len(before), len(after))
	}
}
