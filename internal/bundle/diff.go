package bundle

import (
	"cmp"
	"math"
	"slices"

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

// Diff compares the test results of two bundles (DESIGN §7 nightly
// regressions): recall down or fp_rate up by more than tolerance, or a
// system leaving the budget, is a regression.
func Diff(old, cur *Results, tolerance float64) []Change {
	type key struct {
		corpus, system string
		task           floor.Task
	}
	index := func(r *Results) map[key]TaskResult {
		m := map[key]TaskResult{}
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

func verdict(a, b TaskResult, c Change, tolerance float64) string {
	dRecall := float64(c.NewRecall) - float64(c.OldRecall)
	dFP := float64(c.NewFPRate) - float64(c.OldFPRate)
	switch {
	case a.InBudget && !b.InBudget, a.HasOP && !b.HasOP, dRecall < -tolerance, dFP > tolerance:
		return "regression"
	case dRecall > tolerance, dFP < -tolerance, !a.InBudget && b.InBudget:
		return "better"
	}
	return "same"
}

// Regressions counts the regressions in a diff.
func Regressions(d []Change) int {
	n := 0
	for _, c := range d {
		if c.Verdict == "regression" {
			n++
		}
	}
	return n
}

func nan() report.Num { return report.Num(math.NaN()) }
