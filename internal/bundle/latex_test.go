package bundle_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/testenv"
)

// Every table of a bundle's report, and the verdict of a paired
// comparison, compiles with plain pdflatex when written as LaTeX (setup
// component latex): leaderboards and their paired comparisons, sim-to-real,
// operating points (θ, —), human timing, breakdowns and the error anatomy,
// with a system name made of TeX's specials, and a verdict whose p-value
// is below 0.0001 (Δ, →).
func TestReportTablesCompile(t *testing.T) {
	const name = `café_v2 & #1 {50%} θ−Δ ~^\ $x$ <a|b>`
	_, res := buildBundle(t, false, nil)
	for i := range res.Evaluations {
		if res.Evaluations[i].System == "early" {
			res.Evaluations[i].System = name
		}
	}
	var tables []*report.Table
	for i := range res.Leaderboards {
		tables = append(tables, res.Leaderboards[i].Table(), res.Leaderboards[i].PairedTable())
	}
	tables = append(tables, bundle.SimToReal(res), bundle.OperatingPointsTable(res.Evaluations))
	for _, c := range res.Corpora {
		tables = append(tables, report.TimingTable(c.Timing))
	}
	for i := range res.Evaluations {
		e := &res.Evaluations[i]
		for j := range e.Tasks {
			task := &e.Tasks[j]
			for k := range task.Breakdowns {
				tables = append(tables, bundle.BreakdownTable(e, task, &task.Breakdowns[k]))
			}
			tables = append(tables, bundle.AnatomyTable(e, task))
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	good, dropped := bundle.Simulated(rng, 40, 10, 30, 0.8, 0.05), bundle.Simulated(rng, 40, 10, 30, 0.3, 0.05)
	old := bundle.BundleOf("o", map[string]bundle.TaskResult{"a": bundle.PairedTask(good, true)})
	cur := bundle.BundleOf("n", map[string]bundle.TaskResult{"a": bundle.PairedTask(dropped, true)})
	tables = append(tables, bundle.Paired(old, cur, bundle.PairedOptions{Tolerance: bundle.DefaultTolerance}).Table())

	var body strings.Builder
	for _, tb := range tables {
		if err := tb.LaTeX(&body); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{`caf\'{e}\_v2`, `$\theta$`, `$<$ 0.0001`, `$\Delta$`, `$\rightarrow$`, "by type", "error anatomy"} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("the tables lack %s:\n%s", want, body.String())
		}
	}
	testenv.CompileLaTeX(t, body.String())
}
