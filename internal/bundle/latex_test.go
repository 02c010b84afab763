package bundle_test

import (
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/testenv"
)

// Every table of a bundle's report compiles with plain pdflatex when
// written as LaTeX (setup component latex): leaderboards and their paired
// comparisons, sim-to-real, operating points (θ, —), human timing,
// breakdowns and the error anatomy, with a system name made of TeX's
// specials.
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
	var body strings.Builder
	for _, tb := range tables {
		if err := tb.LaTeX(&body); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{`caf\'{e}\_v2`, `$\theta$`, `$\Delta$`, "by type", "error anatomy"} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("the tables lack %s:\n%s", want, body.String())
		}
	}
	testenv.CompileLaTeX(t, body.String())
}
