package main

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/testenv"
)

// latexName is a system and file name made of TeX's specials and the
// symbols floorbench's tables use.
const latexName = `café_v2 & #1 {50%} θ−Δ ~^\ $x$ <a|b>`

// Every table floorbench writes as LaTeX compiles with plain pdflatex
// (setup component latex), in one document: the leaderboard's -o latex
// output (ranking and paired comparisons), the -o latex output of every
// other result command (resultCommands: score, sweep, corpus stats,
// timing and audit, bundle show, bundle diff with a paired verdict), and
// the tables of score and sweep rendered by the same writer with a system
// and file names full of TeX's specials. The bundle report's tables with
// such a name and a verdict with a p-value below 0.0001 are compiled by
// internal/bundle's TestReportTablesCompile.
func TestLaTeXOutputsCompile(t *testing.T) {
	dir := t.TempDir()
	devGold, testGold, systems := leaderboardFixture(t, dir)
	for i, s := range systems {
		systems[i] = strings.Replace(s, "oracle=", latexName+"=", 1)
	}
	args := append([]string{"leaderboard", "--dev-gold", devGold, "--test-gold", testGold, "--bootstrap", "500", "--seed", "1", "-o", "latex"}, systems...)
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("leaderboard: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`caf\'{e}\_v2 \& \#1 \{50\%\} $\theta$$-$$\Delta$`, `$\Delta$ recall`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("leaderboard -o latex lacks %s:\n%s", want, stdout)
		}
	}
	var body strings.Builder
	body.WriteString(stdout)
	for _, c := range resultCommands(t) {
		out := runResult(t, c, "latex")
		if !strings.Contains(out, "\\begin{tabular}") {
			t.Errorf("%s -o latex has no table:\n%s", c.name, out)
		}
		body.WriteString(out)
	}
	tables := append(referenceScoreTables(t), referenceSweepTables(t)...)
	for _, tb := range tables {
		if err := tb.LaTeX(&body); err != nil {
			t.Fatal(err)
		}
	}
	testenv.CompileLaTeX(t, body.String())
}

// referenceScoreTables are score's tables for the reference's synthetic
// gold and predictions, with bootstrap intervals, under latexName.
func referenceScoreTables(t *testing.T) []*report.Table {
	t.Helper()
	gold, err := floor.ReadGoldSet(referencePath("gold-synthetic.json"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	sub, err := score.ReadSubmission(referencePath("predictions-synthetic.json"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	o := &scoreOptions{predictions: latexName + ".json", bootstrap: 200, seed: 1, params: score.DefaultParams()}
	rows, err := score.ScoreSubmission(gold, sub, o.params)
	if err != nil {
		t.Fatal(err)
	}
	perTask := map[floor.Task][]score.Counts{}
	for _, r := range rows {
		for _, task := range floor.Tasks {
			perTask[task] = append(perTask[task], *r.Task(task))
		}
	}
	resamples := score.NewResamples(len(rows), o.bootstrap, o.seed)
	cis := map[floor.Task]score.RateCIs{}
	for _, task := range floor.Tasks {
		cis[task] = resamples.CIs(perTask[task])
	}
	per, agg := scoreTables(o, rows, perTask, cis)
	return []*report.Table{per, agg}
}

// referenceSweepTables are sweep's tables (θ, the ● mark, ≤ in the
// caption) for the reference's probabilities of both tasks.
func referenceSweepTables(t *testing.T) []*report.Table {
	t.Helper()
	gold, err := floor.ReadGoldSet(referencePath("gold.expected.json"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	var out []*report.Table
	for _, name := range []string{"probs-eot.json", "probs-int.json"} {
		probs, err := score.ReadProbs(referencePath(name), limits.Default())
		if err != nil {
			t.Fatal(err)
		}
		res, err := runSweep(gold, probs, score.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sweepRowsTable(latexName+"_"+name, res, score.DefaultParams()))
	}
	return out
}
