package score

import (
	"cmp"
	"math"
	"slices"
)

// Standing is one system's place on a task's leaderboard.
type Standing struct {
	*TaskEvaluation
	Rank int // 1-based among in-budget systems; 0 when out of budget
}

// Leaderboard orders evaluations of one task (docs/protocol.md#budgets-and-the-leaderboard): in-budget
// systems ranked by test recall, then every out-of-budget system below
// them (those with an operating point by test recall, then those without).
// Equal recall is broken by the lower median test latency (TurnBench ranks
// qualifying systems by latency), then by name, so the order never depends
// on the input order.
func Leaderboard(evals []*TaskEvaluation) []Standing {
	out := make([]Standing, len(evals))
	for i, e := range evals {
		out[i] = Standing{TaskEvaluation: e}
	}
	group := func(s Standing) int {
		switch {
		case s.InBudget:
			return 0
		case s.HasOperatingPoint:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(a, b Standing) int {
		return cmp.Or(
			cmp.Compare(group(a), group(b)),
			compareNaNLast(a.Test.Recall(), b.Test.Recall(), true),
			compareNaNLast(a.Test.Latency().P50, b.Test.Latency().P50, false),
			cmp.Compare(a.System, b.System),
		)
	})
	rank := 0
	for i := range out {
		if out[i].InBudget {
			rank++
			out[i].Rank = rank
		}
	}
	return out
}

// compareNaNLast orders a and b ascending (descending with desc), undefined
// values last either way.
func compareNaNLast(a, b float64, desc bool) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	if desc {
		return cmp.Compare(b, a)
	}
	return cmp.Compare(a, b)
}

// Ranking is a task's leaderboard with, under a bootstrap, every system's
// test intervals and a paired comparison of every two systems with an
// operating point, all on the same resamples of the test conversations
// (docs/protocol.md#paired-comparisons).
type Ranking struct {
	Standings []Standing
	CIs       map[string]RateCIs // by system; empty without a bootstrap
	Paired    []PairedComparison // in standings order
	// NegativeWindow is the window the standings are ranked under;
	// LatencyBudgetsMS are the budgets of recall within a latency budget
	// the standings report and the comparisons compare.
	NegativeWindow   NegativeWindow
	LatencyBudgetsMS []int
}

// PairedComparison is system A minus system B on the same resamples:
// recall, fp_rate, and recall within each latency budget (in the
// ranking's budget order).
type PairedComparison struct {
	A, B           string
	Recall, FPRate Difference
	RecallWithin   []Difference
}

// Rank orders evaluations of one task with Leaderboard and, with
// resamples > 0, draws the resamples (seeded by seed) of the test
// conversations the evaluations share and compares the systems on them,
// recall within each of p's latency budgets included.
func Rank(evals []*TaskEvaluation, p Params, resamples int, seed uint64) Ranking {
	r := Ranking{Standings: Leaderboard(evals), CIs: map[string]RateCIs{},
		NegativeWindow: p.NegativeWindow, LatencyBudgetsMS: p.LatencyBudgetsMS}
	if resamples <= 0 {
		return r
	}
	var rs *Resamples
	for _, s := range r.Standings {
		if s.HasOperatingPoint {
			if rs == nil {
				rs = NewResamples(len(s.TestByConv), resamples, seed)
			}
			r.CIs[s.System] = rs.CIs(s.TestByConv)
		}
	}
	for i, a := range r.Standings {
		for _, b := range r.Standings[i+1:] {
			if a.HasOperatingPoint && b.HasOperatingPoint {
				c := PairedComparison{A: a.System, B: b.System}
				c.Recall, c.FPRate = rs.Paired(a.TestByConv, b.TestByConv)
				for _, ms := range p.LatencyBudgetsMS {
					c.RecallWithin = append(c.RecallWithin, rs.PairedWithin(a.TestByConv, b.TestByConv, ms))
				}
				r.Paired = append(r.Paired, c)
			}
		}
	}
	return r
}
