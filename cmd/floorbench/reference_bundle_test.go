package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
)

// referenceSweeps are the reference sweeps: gold, probabilities and what
// TurnBench's scorer gives for them.
var referenceSweeps = []struct{ gold, probs, expected string }{
	{"gold.expected.json", "probs-eot.json", "sweep-eot.expected.json"},
	{"gold.expected.json", "probs-int.json", "sweep-int.expected.json"},
	{"gold-synthetic.json", "probs-synthetic-eot.json", "sweep-synthetic-eot.expected.json"},
	{"gold-synthetic.json", "probs-synthetic-int.json", "sweep-synthetic-int.expected.json"},
	{"gold-synthetic.json", "probs-synthetic-int-zeros.json", "sweep-synthetic-int-zeros.expected.json"},
}

// The reference sweeps through the path every bundle takes (evaluate.System,
// as the Evaluate activity calls it) on a corpus whose dev and test are the
// reference gold: the dev curve, the operating point and test at the frozen
// threshold must be the reference's numbers to the last bit, and the same
// as `floorbench sweep` gives. A second corpus without dev data, given the
// operating point as a transferred threshold, must score test the same.
func TestReferenceBundlePath(t *testing.T) {
	for _, c := range referenceSweeps {
		t.Run(c.expected, func(t *testing.T) {
			gold, err := floor.ReadGoldSet(referencePath(c.gold), limits.Default())
			if err != nil {
				t.Fatal(err)
			}
			probs, err := score.ReadProbs(referencePath(c.probs), limits.Default())
			if err != nil {
				t.Fatal(err)
			}
			p := score.DefaultParams()
			p.TauPre, p.TauMax = gold.TauPre, gold.TauMax
			own := evaluateReference(t, &evaluate.Corpus{Name: "reference", Dev: gold, Test: gold}, probs, p, nil)
			cli := runFloorbench(t, "sweep", "--gold", referencePath(c.gold), "--probs", referencePath(c.probs), "-o", "json")
			for _, want := range []struct {
				name string
				doc  []byte
			}{{c.expected, readReference(t, c.expected)}, {"floorbench sweep", cli}} {
				if d := referenceDiff("", sweepAsBundle(t, want.doc), bundleAsSweep(t, own)); d != "" {
					t.Fatalf("bundle path differs from %s: %s", want.name, d)
				}
			}
			if !own.HasOP {
				t.Fatal("the reference has an operating point, the bundle path none")
			}
			frozen := map[floor.Task]evaluate.TransferredTheta{probs.Task: {Theta: float64(own.Theta), From: "reference"}}
			moved := evaluateReference(t, &evaluate.Corpus{Name: "no-dev", Test: gold}, probs, p, frozen)
			if moved.TransferredFrom != "reference" || moved.Dev != nil || moved.NCandidates != 0 {
				t.Fatalf("transferred: from %q, dev %v, %d candidates", moved.TransferredFrom, moved.Dev, moved.NCandidates)
			}
			if d := referenceDiff("", jsonValue(t, own.Test), jsonValue(t, moved.Test)); d != "" {
				t.Fatalf("test at the transferred threshold differs from test at the own one: %s", d)
			}
		})
	}
}

func evaluateReference(t *testing.T, c *evaluate.Corpus, probs *score.ProbsFile, p score.Params, frozen map[floor.Task]evaluate.TransferredTheta) *evaluate.TaskResult {
	t.Helper()
	in := &evaluate.Input{System: "reference", Corpus: c, Params: p, Transferred: frozen,
		DevProbs: map[floor.Task]*score.ProbsFile{}, TestProbs: map[floor.Task]*score.ProbsFile{probs.Task: probs}}
	if c.Dev != nil {
		in.DevProbs[probs.Task] = probs
	}
	e, err := evaluate.System(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Tasks) != 1 {
		t.Fatalf("%d tasks evaluated, want 1", len(e.Tasks))
	}
	return &e.Tasks[0]
}

// sweepAsBundle keeps of a sweep document what a bundle's task result
// holds: per row the threshold and rates, and the operating point
// (without false_int_rate, the command's column that bundles do not keep).
func sweepAsBundle(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(doc, &s); err != nil {
		t.Fatal(err)
	}
	var rows []any
	for _, r := range s["rows"].([]any) {
		r := r.(map[string]any)
		rows = append(rows, map[string]any{"theta": r["theta"], "recall": r["recall"], "fp_rate": r["fp_rate"]})
	}
	op, _ := s["operating_point"].(map[string]any)
	delete(op, "false_int_rate")
	return map[string]any{"task": s["task"], "n_candidates": s["n_candidates"], "rows": rows, "operating_point": s["operating_point"]}
}

// bundleAsSweep is a bundle's task result in the sweep's terms: the dev
// curve as rows, the operating point as θ with the dev metrics, and test
// (the same gold and scores, so the same counts) as the operating point
// again.
func bundleAsSweep(t *testing.T, r *evaluate.TaskResult) map[string]any {
	t.Helper()
	op := func(m *report.TaskMetrics) any {
		if m == nil {
			return nil
		}
		v := jsonValue(t, m).(map[string]any)
		delete(v, "ci95")
		v["theta"] = float64(r.Theta)
		return v
	}
	var rows []any
	for _, c := range r.DevCurve {
		rows = append(rows, jsonValue(t, c))
	}
	out := map[string]any{"task": string(r.Task), "n_candidates": float64(r.NCandidates), "rows": rows, "operating_point": op(r.Dev)}
	if d := referenceDiff("", op(r.Dev), op(r.Test)); d != "" {
		t.Fatalf("test at the frozen threshold differs from dev at the operating point on the same data: %s", d)
	}
	return out
}

func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func readReference(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(referencePath(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
