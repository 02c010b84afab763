package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
)

// Change compares one system, corpus and task between two bundles.
type Change struct {
	Corpus    string     `json:"corpus"`
	System    string     `json:"system"`
	Task      floor.Task `json:"task"`
	OldRecall report.Num `json:"old_recall"`
	NewRecall report.Num `json:"new_recall"`
	OldFPRate report.Num `json:"old_fp_rate"`
	NewFPRate report.Num `json:"new_fp_rate"`
	// Verdict is "same", "better", "regression", "new" or "gone".
	Verdict string `json:"verdict"`
}

// Diff compares the test results of two bundles (docs/architecture.md#bundles, nightly
// regressions): recall down or fp_rate up by more than tolerance, or a
// system leaving the budget, is a regression.
func Diff(old, cur *bundle.Results, tolerance float64) []Change {
	type key struct {
		corpus, system string
		task           floor.Task
	}
	index := func(r *bundle.Results) map[key]evaluate.TaskResult {
		m := map[key]evaluate.TaskResult{}
		for _, e := range r.Evaluations {
			for _, t := range e.Tasks {
				m[key{e.Corpus, e.System, t.Task}] = t
			}
		}
		return m
	}
	o, n := index(old), index(cur)
	var keys []key
	for k := range o {
		keys = append(keys, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.corpus, b.corpus), cmp.Compare(a.system, b.system), cmp.Compare(a.task, b.task))
	})
	var out []Change
	for _, k := range keys {
		a, inOld := o[k]
		b, inNew := n[k]
		c := Change{Corpus: k.corpus, System: k.system, Task: k.task, OldRecall: nan(), NewRecall: nan(), OldFPRate: nan(), NewFPRate: nan()}
		if inOld && a.Test != nil {
			c.OldRecall, c.OldFPRate = a.Test.Recall, a.Test.FPRate
		}
		if inNew && b.Test != nil {
			c.NewRecall, c.NewFPRate = b.Test.Recall, b.Test.FPRate
		}
		switch {
		case !inOld:
			c.Verdict = "new"
		case !inNew:
			c.Verdict = "gone"
		default:
			c.Verdict = verdict(a, b, c, tolerance)
		}
		out = append(out, c)
	}
	return out
}

// CheckTolerance accepts a finite, non-negative tolerance: a NaN one would
// make every comparison false (a collapse would read as "same") and a
// negative one would flag a bundle against itself.
func CheckTolerance(tolerance float64) error {
	if math.IsNaN(tolerance) || math.IsInf(tolerance, 0) || tolerance < 0 {
		return fmt.Errorf("--tolerance %g: want a finite number >= 0", tolerance)
	}
	return nil
}

func verdict(a, b evaluate.TaskResult, c Change, tolerance float64) string {
	dRecall := float64(c.NewRecall) - float64(c.OldRecall)
	dFP := float64(c.NewFPRate) - float64(c.OldFPRate)
	// A measured value that became unmeasured (NaN, no test result) is a
	// regression, not a difference every comparison calls "same".
	lost := func(old, cur report.Num) bool { return !math.IsNaN(float64(old)) && math.IsNaN(float64(cur)) }
	switch {
	case a.InBudget && !b.InBudget, a.HasOP && !b.HasOP, dRecall < -tolerance, dFP > tolerance,
		lost(c.OldRecall, c.NewRecall), lost(c.OldFPRate, c.NewFPRate):
		return "regression"
	case dRecall > tolerance, dFP < -tolerance, !a.InBudget && b.InBudget:
		return "better"
	}
	return "same"
}

// Regressions counts the regressions in a diff; a system, corpus or task
// that is gone from the new bundle counts as one.
func Regressions(d []Change) int {
	n := 0
	for _, c := range d {
		if c.Verdict == "regression" || c.Verdict == "gone" {
			n++
		}
	}
	return n
}

func nan() report.Num { return report.Num(math.NaN()) }

// Mismatches lists what makes two bundles' numbers incomparable, to be
// reported before any verdict: a different scoring protocol, bootstrap,
// or corpus content under the same corpus name.
func Mismatches(old, cur *bundle.Results) []string {
	var out []string
	if a, b := protocolFields(old), protocolFields(cur); !maps.Equal(a, b) {
		keys := slices.Sorted(maps.Keys(a))
		for k := range b {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if a[k] != b[k] {
				out = append(out, fmt.Sprintf("protocol %s: %s in %s, %s in %s", k, orNone(a[k]), old.BundleID, orNone(b[k]), cur.BundleID))
			}
		}
	}
	if old.Resamples != cur.Resamples || old.Seed != cur.Seed {
		out = append(out, fmt.Sprintf("bootstrap: %d resamples seed %d in %s, %d resamples seed %d in %s",
			old.Resamples, old.Seed, old.BundleID, cur.Resamples, cur.Seed, cur.BundleID))
	}
	hashes := func(r *bundle.Results) map[string]string {
		m := map[string]string{}
		for _, e := range r.Evaluations {
			m[e.Corpus] = e.CorpusHash
		}
		return m
	}
	oh, nh := hashes(old), hashes(cur)
	for _, name := range slices.Sorted(maps.Keys(oh)) {
		if h, ok := nh[name]; ok && h != oh[name] {
			out = append(out, fmt.Sprintf("corpus %s: content %s in %s, %s in %s", name, oh[name], old.BundleID, h, cur.BundleID))
		}
	}
	return out
}

// protocolFields are the protocol parameters by JSON name, as text.
func protocolFields(r *bundle.Results) map[string]string {
	data, _ := json.Marshal(r.Protocol)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(data, &raw)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		out[k] = string(v)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
