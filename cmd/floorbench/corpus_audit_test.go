package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
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
