package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/nightly"
	"github.com/floorbench/floorbench/internal/score"
)

// resultCommand is a command whose output is a result, run on a small
// fixture, with the exit status it ends with (bundle diff: 1 on a
// regression).
type resultCommand struct {
	name string
	args []string
	code int
}

// resultCommands are the commands of -o text|json|md|csv|latex on the
// fixtures of their own tests: the reference's synthetic gold,
// predictions and probabilities (relative paths, so that the titles that
// name them are the same on every machine), an audit fixture corpus, and
// a store with bundles of the bundle fixtures and a schedule's runs (one
// failed). The leaderboard's formats have goldens of their own
// (TestLeaderboardFormats).
func resultCommands(t *testing.T) []resultCommand {
	t.Helper()
	corpusDir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(corpusDir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	st := t.TempDir()
	rich := storeFixtureBundle(t, st)
	good, worse := storePairedBundle(t, st, "good", "h1", 8), storePairedBundle(t, st, "worse", "h2", 6)
	storeScheduleRuns(t, st, "nightly", nightly.Run{BundleID: good}, nightly.Run{Error: "corpus tb: not found"}, nightly.Run{BundleID: worse})
	storeArgs := []string{"--config", "", "--store-dir", st}
	return []resultCommand{
		{"score", []string{"score", "--gold", referencePath("gold-synthetic.json"), "--predictions", referencePath("predictions-synthetic.json"), "--bootstrap", "200", "--seed", "1"}, 0},
		{"sweep", []string{"sweep", "--gold", referencePath("gold-synthetic.json"), "--probs", referencePath("probs-synthetic-eot.json")}, 0},
		{"corpus-stats", []string{"corpus", "stats", corpusDir}, 0},
		{"corpus-timing", []string{"corpus", "timing", corpusDir}, 0},
		{"corpus-audit", []string{"corpus", "audit", corpusDir, "--bootstrap", "100", "--seed", "1"}, 0},
		{"bundle-show", append([]string{"bundle", "show", rich}, storeArgs...), 0},
		{"bundle-diff-paired", append([]string{"bundle", "diff", good, worse}, storeArgs...), 1},
		{"bundle-diff", append([]string{"bundle", "diff", good, worse, "--paired=false"}, storeArgs...), 1},
		{"schedule-history", append([]string{"schedule", "history", "nightly"}, storeArgs...), 0},
	}
}

// storeScheduleRuns writes the run records of a schedule, a day apart, as
// its workflow does; schedule history reads nothing else.
func storeScheduleRuns(t *testing.T, storeDir, schedule string, runs ...nightly.Run) {
	t.Helper()
	for i, r := range runs {
		at := time.Date(2026, 11, 1+i, 3, 0, 0, 0, time.UTC)
		r.Schedule, r.Scheduled = schedule, at.Format(time.RFC3339)
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(storeDir, filepath.FromSlash(keys.ScheduleRun(schedule, at)+nightly.RunFile))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// storeFixtureBundle writes the bundle of bundlefixture's Mini corpus with
// its two systems (leaderboard, paired comparisons, operating points,
// breakdowns, error anatomy) into a local store and returns its id.
func storeFixtureBundle(t *testing.T, storeDir string) string {
	t.Helper()
	c, tracks := bundlefixture.Make(bundlefixture.Mini())
	meta := bundle.Meta{Name: "formats", SpecHash: "abc123", Spec: json.RawMessage(`{"name":"formats"}`), CodeVersion: "test",
		Protocol: score.DefaultParams(), Resamples: 200, Seed: 9}
	var evals []evaluate.Evaluation
	for _, s := range []string{"early", "late"} {
		e, err := evaluate.System(&evaluate.Input{System: s, SystemHash: s + "-hash", Corpus: c, DevProbs: tracks[s].Dev, TestProbs: tracks[s].Test,
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, *e)
	}
	return writeBundle(t, storeDir, meta, evals...)
}

// runResult runs c with -o format and returns its stdout.
func runResult(t *testing.T, c resultCommand, format string) string {
	t.Helper()
	stdout, stderr, code := run(t, append(c.args, "-o", format)...)
	if code != c.code || stderr != "" && c.code == 0 {
		t.Fatalf("%s -o %s: exit %d (want %d)\nstderr %s", c.name, format, code, c.code, stderr)
	}
	return stdout
}

// Every result command prints its tables as Markdown and CSV (goldens in
// testdata/<command>.md|csv.golden; -update rewrites them). -o table is
// still -o text; CSV holds tables only, and Markdown every table its text
// output has.
func TestResultFormats(t *testing.T) {
	for _, c := range resultCommands(t) {
		t.Run(c.name, func(t *testing.T) {
			text := runResult(t, c, "text")
			if table := runResult(t, c, "table"); table != text {
				t.Errorf("-o table differs from -o text:\n%s\n%s", table, text)
			}
			md := runResult(t, c, "md")
			golden(t, c.name+".md", md)
			csv := runResult(t, c, "csv")
			golden(t, c.name+".csv", csv)
			// Tables are counted by their rules: ─── under a text header,
			// |---| under a Markdown one; CSV tables are separated by a
			// blank line and have no prose around them.
			tables := strings.Count("\n"+text, "\n───")
			if c.name == "bundle-show" {
				tables = strings.Count(text, "\n|---") // report.md
			}
			if n := strings.Count(md, "\n|---"); n != tables {
				t.Errorf("md has %d tables, text %d", n, tables)
			}
			if n := len(strings.Split(strings.TrimSuffix(csv, "\n"), "\n\n")); n != tables {
				t.Errorf("csv has %d blocks, text %d tables", n, tables)
			}
		})
	}
}

// A bad -o is one error line naming the flag, the value and the formats
// the command takes, before anything runs.
func TestBadOutputFormatIsOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"score", "--gold", "g.json", "--predictions", "p.json", "-o", "pdf"}, `invalid argument "pdf" for "-o, --output" flag: want text, json, md, csv or latex`},
		{[]string{"corpus", "audit", "nothing", "-o", "xml"}, `invalid argument "xml" for "-o, --output" flag: want text, json, md, csv or latex`},
		{[]string{"leaderboard", "--dev-gold", "d", "--test-gold", "t", "-o", "html"}, `invalid argument "html" for "-o, --output" flag: want text, json, md, csv, latex or turnbench`},
		{[]string{"bundle", "ls", "-o", "md"}, `invalid argument "md" for "-o, --output" flag: want table or json`},
		{[]string{"systems", "-o", "text"}, `invalid argument "text" for "-o, --output" flag: want table or json`},
	} {
		stdout, stderr, code := run(t, c.args...)
		oneErrorLine(t, stdout, stderr, code, c.want)
	}
	_, _, code := run(t, "bundle", "diff", "a", "b", "-o", "pdf", "--config", "", "--store-dir", t.TempDir())
	if code != 2 {
		t.Errorf("bundle diff -o pdf: exit %d, want 2 (its usage errors)", code)
	}
}
