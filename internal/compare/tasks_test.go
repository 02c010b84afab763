package compare

import (
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// resultsOf is a bundle of systems by name, each scoring the tasks given,
// every task at recall 0.5.
func resultsOf(id string, systems map[string][]floor.Task) *bundle.Results {
	res := &bundle.Results{BundleID: id, Protocol: score.DefaultParams(), Resamples: 100, Seed: 1}
	for name, tasks := range systems {
		e := evaluate.Evaluation{System: name, Corpus: "c", CorpusHash: "h"}
		for _, task := range tasks {
			e.Tasks = append(e.Tasks, evaluate.TaskResult{Task: task, HasOP: true, InBudget: true,
				Test: &report.TaskMetrics{Recall: 0.5, FPRate: 0.05}})
		}
		res.Evaluations = append(res.Evaluations, e)
	}
	return res
}

// A diff compares systems on the tasks they score: an EOT-only system
// has EOT rows alone, and a system that stopped scoring INT has its INT
// row gone, a regression.
func TestDiffComparesOneTaskSystemsOnTheirTask(t *testing.T) {
	eot := []floor.Task{floor.TaskEOT}
	old := resultsOf("a", map[string][]floor.Task{"both": floor.Tasks, "smart-turn": eot})
	cur := resultsOf("b", map[string][]floor.Task{"both": eot, "smart-turn": eot})
	want := map[Subject]string{
		{"c", "both", floor.TaskEOT}:       "same",
		{"c", "both", floor.TaskINT}:       "gone",
		{"c", "smart-turn", floor.TaskEOT}: "same",
	}
	d := Diff(old, cur, 0)
	if len(d) != len(want) || Regressions(d) != 1 {
		t.Fatalf("diff %+v, %d regressions; want %d rows, 1 regression", d, Regressions(d), len(want))
	}
	for _, c := range d {
		if want[c.Subject] != c.Verdict {
			t.Errorf("%+v: %s, want %q", c.Subject, c.Verdict, want[c.Subject])
		}
	}
}
