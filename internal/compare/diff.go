package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/report"
)

// Change compares one system, corpus and task between two bundles.
type Change struct {
	Subject
	Rates
	// Verdict is "same", "better", "regression", "new" or "gone".
	Verdict string `json:"verdict"`
}

// Diff compares the test results of two bundles (docs/architecture.md#bundles, nightly
// regressions): recall down or fp_rate up by more than tolerance, or a
// system leaving the budget, is a regression.
func Diff(old, cur *bundle.Results, tolerance float64) []Change {
	var out []Change
	for _, r := range rows(old, cur) {
		c := Change{Subject: r.Subject, Rates: r.rates()}
		switch {
		case r.old == nil:
			c.Verdict = "new"
		case r.cur == nil:
			c.Verdict = "gone"
		default:
			c.Verdict = verdict(r.old.TaskResult, r.cur.TaskResult, c, tolerance)
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
