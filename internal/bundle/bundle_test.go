package bundle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

var update = flag.Bool("update", false, "rewrite golden files")

// buildBundle evaluates two systems on the generated fixture and, with
// thresholds transferred from it, on the real-looking one.
func buildBundle(t *testing.T, reverse bool, audits map[string]*audit.Report) ([]bundle.File, *bundle.Results) {
	c, tracks := bundlefixture.Make(bundlefixture.Mini())
	real, realTracks := bundlefixture.Make(bundlefixture.RealMini())
	meta := bundle.Meta{Name: "unit", SpecHash: "abc123", Spec: json.RawMessage(`{"name":"unit"}`), CodeVersion: "test",
		Protocol: score.DefaultParams(), Resamples: 300, Seed: 9,
		Inputs: []bundle.InputRef{{"corpus", c.Name, c.Hash}, {"corpus", real.Name, real.Hash}, {"system", "early", "e1"}, {"system", "late", "l1"}}}
	var evals []evaluate.Evaluation
	for _, s := range []string{"early", "late"} {
		e, err := evaluate.System(&evaluate.Input{System: s, SystemHash: s + "-hash", Corpus: c, DevProbs: tracks[s].Dev, TestProbs: tracks[s].Test,
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			t.Fatal(err)
		}
		r, err := evaluate.System(&evaluate.Input{System: s, SystemHash: s + "-hash", Corpus: real, DevProbs: realTracks[s].Dev, TestProbs: realTracks[s].Test,
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed, Transferred: e.OperatingPoints(c.Name)})
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, *e, *r)
	}
	if reverse {
		slices.Reverse(evals)
	}
	files, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals, Audits: audits}, "2026-11-30T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	return files, res
}

func TestBundleIsDeterministicWhateverTheOrder(t *testing.T) {
	a, _ := buildBundle(t, false, nil)
	b, _ := buildBundle(t, true, nil)
	if len(a) != len(b) {
		t.Fatalf("%d files vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s differs between evaluation orders", a[i].Name)
		}
	}
}

func TestBundleContents(t *testing.T) {
	files, res := buildBundle(t, false, nil)
	names := map[string][]byte{}
	for _, f := range files {
		names[f.Name] = f.Data
	}
	for _, want := range []string{"manifest.json", "results.json", "report.md", "events.csv", "predictions/mptb-mini/early.json", "predictions/mptb-mini/late.json"} {
		if _, ok := names[want]; !ok {
			t.Errorf("bundle lacks %s", want)
		}
	}
	// "early" finds every event but fires on too many holds: out of the test budget.
	if len(res.Leaderboards) != 4 || res.Leaderboards[0].Rows[0].System != "late" || res.Leaderboards[0].Rows[1].Status != "out of budget" {
		t.Errorf("leaderboards %+v", res.Leaderboards)
	}
	// Every test result carries fp_rate under both windows with its
	// interval, recall within each latency budget, the budget verdict
	// under both windows, and per-conversation counts under both.
	results := string(names["results.json"])
	for _, want := range []string{`"negative_window": "span"`, `"recall_within_ms": {`, `"fp_rate_by_window": {`, `"anchored": {`,
		`"in_budget_by_window": {`, `"blind_spot": false`, `"negatives_by_window": {`} {
		if !strings.Contains(results, want) {
			t.Errorf("results.json lacks %s", want)
		}
	}
	for _, e := range res.Evaluations {
		for _, r := range e.Tasks {
			if r.Test == nil {
				continue
			}
			w := r.Test.FPRateByWindow
			if w.Span.CI95 == nil || w.Anchored.CI95 == nil || len(r.Test.RecallWithinMS) != 3 ||
				r.Test.FP != w.Span.FP || w.Anchored.FP < w.Span.FP || r.InBudget != r.InBudgetByWindow.Span {
				t.Errorf("%s on %s, %s: windows %+v, recall within %v", e.System, e.Corpus, r.Task, w, r.Test.RecallWithinMS)
			}
		}
	}
	// The real-looking corpus has no dev split: both tasks use the
	// generated corpus's frozen thresholds, and say so.
	for _, e := range res.Evaluations {
		for _, r := range e.Tasks {
			own := e.Corpus == "mptb-mini"
			if own == (r.TransferredFrom != "") || !own && r.TransferredFrom != "mptb-mini" {
				t.Errorf("%s on %s, %s: transferred from %q", e.System, e.Corpus, r.Task, r.TransferredFrom)
			}
		}
		if e.CorpusInfo != nil {
			t.Errorf("%s on %s: corpus info repeated in the evaluation", e.System, e.Corpus)
		}
	}
	if len(res.Corpora) != 2 || res.Corpora[1].Name != "real-mini" || res.Corpora[1].Dev != 0 || res.Corpora[1].Test != 16 ||
		res.Corpora[1].Unlabelled != 2 || res.Corpora[0].Timing.Transfers == 0 {
		t.Errorf("corpora %+v", res.Corpora)
	}
	sub, err := score.ParseSubmission(names["predictions/mptb-mini/early.json"])
	if err != nil || len(sub.Conversations) != 12 {
		t.Fatalf("predictions are not a valid submission of the 12 test conversations: %v", err)
	}
	lines := strings.Count(string(names["events.csv"]), "\n")
	if lines < 100 {
		t.Errorf("events.csv has %d lines", lines)
	}
	report := string(names["report.md"])
	for _, want := range []string{"EOT leaderboard on mptb-mini", "by speakers (test)", "by type (test)", "error anatomy", "hold_ending", "claim_words", "paired comparisons",
		"## Sim-to-real", "| late | real-mini | ami |", "EOT: mptb-mini dev, INT: mptb-mini dev", "2 unlabelled (detected, not scored)", "Human timing on real-mini"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	golden(t, "report.md", names["report.md"])
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file", name)
	}
}

// A bundle carries each corpus's audit in results.json and report.md, and
// its best trivial rules in the sim-to-real table.
func TestBundleCarriesTheCorpusAudit(t *testing.T) {
	files, _ := buildBundle(t, false, map[string]*audit.Report{"mptb-mini": shortcutAudit(t)})
	names := map[string][]byte{}
	for _, f := range files {
		names[f.Name] = f.Data
	}
	var res bundle.Results
	if err := json.Unmarshal(names["results.json"], &res); err != nil {
		t.Fatal(err)
	}
	got := res.Corpora[0].Audit
	if got == nil || res.Corpora[1].Audit != nil || len(got.Tasks) != 2 || !slices.Contains(got.Tasks[1].Shortcuts, "overlap_run_length") {
		t.Fatalf("results.json corpora audits: %+v, %+v", got, res.Corpora[1].Audit)
	}
	report := string(names["report.md"])
	for _, want := range []string{"### Corpus audit: trivial rules", "- SHORTCUT int (span window): overlap run length — fire once an overlapping run lasts",
		"| best trivial rule (audit) | mptb-mini | mptb | EOT: ", "INT: fire once an overlapping run lasts"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Without audits the bundle is what it was: the golden report.
	plain, _ := buildBundle(t, false, nil)
	if bytes.Contains(plain[1].Data, []byte(`"audit"`)) {
		t.Error("results.json has an audit without one")
	}
}

// shortcutAudit is the audit (100 resamples) of auditfixture's corpus that
// a trivial rule solves.
func shortcutAudit(t *testing.T) *audit.Report {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	o := audit.DefaultOptions()
	o.Resamples = 100
	a, err := audit.Run(context.Background(), dir, o, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	return a
}
