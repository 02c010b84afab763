package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

func results(id string, recall float64, test bool) *bundle.Results {
	t := evaluate.TaskResult{Task: floor.TaskEOT, HasOP: true, InBudget: true}
	if test {
		t.Test = &report.TaskMetrics{Recall: report.Num(recall), FPRate: 0.05}
	}
	return &bundle.Results{BundleID: id, Protocol: score.DefaultParams(), Resamples: 100, Seed: 1,
		Evaluations: []evaluate.Evaluation{{System: "s", Corpus: "c", CorpusHash: "h", Tasks: []evaluate.TaskResult{t}}}}
}

// The verdicts a nightly gate acts on: a collapse is a regression
// whatever the tolerance, a result that disappears is one, and equal
// bundles are the same at tolerance 0.
func TestDiffVerdicts(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, cur *bundle.Results
		want     string
	}{
		{"collapse", results("a", 0.621, true), results("b", 0, true), "regression"},
		{"within tolerance", results("a", 0.621, true), results("b", 0.619, true), "same"},
		{"improvement", results("a", 0.5, true), results("b", 0.6, true), "better"},
		{"identical at tolerance 0", results("a", 0.5, true), results("a", 0.5, true), "same"},
		{"test result lost", results("a", 0.5, true), results("b", 0, false), "regression"},
		{"recall became NaN", results("a", 0.5, true), results("b", math.NaN(), true), "regression"},
	} {
		tol := 0.005
		if strings.Contains(c.name, "tolerance 0") {
			tol = 0
		}
		d := Diff(c.old, c.cur, tol)
		if len(d) != 1 || d[0].Verdict != c.want {
			t.Errorf("%s: %+v, want %s", c.name, d, c.want)
		}
	}
	gone := results("b", 0, true)
	gone.Evaluations = nil
	if d := Diff(results("a", 0.5, true), gone, 0.005); Regressions(d) != 1 || d[0].Verdict != "gone" {
		t.Errorf("a system gone from the new bundle: %+v, %d regressions", d, Regressions(d))
	}
}

func TestCheckTolerance(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), -0.01} {
		if err := CheckTolerance(bad); err == nil {
			t.Errorf("tolerance %g accepted", bad)
		}
	}
	for _, ok := range []float64{0, 0.005, 1} {
		if err := CheckTolerance(ok); err != nil {
			t.Errorf("tolerance %g: %v", ok, err)
		}
	}
}

// Bundles scored under different protocols, bootstraps or corpus
// contents are reported, field by field.
func TestMismatches(t *testing.T) {
	a, b := results("a", 0.5, true), results("b", 0.5, true)
	if m := Mismatches(a, b); len(m) != 0 {
		t.Fatalf("comparable bundles: %q", m)
	}
	b.Protocol.TauMax = 2
	b.Seed = 7
	b.Evaluations[0].CorpusHash = "other"
	m := strings.Join(Mismatches(a, b), "\n")
	for _, want := range []string{"protocol tau_max_s: 3 in a, 2 in b", "bootstrap: 100 resamples seed 1 in a, 100 resamples seed 7 in b", "corpus c: content h in a, other in b"} {
		if !strings.Contains(m, want) {
			t.Errorf("mismatches %q lack %q", m, want)
		}
	}
}
