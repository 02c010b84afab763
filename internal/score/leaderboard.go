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
			rs = NewResamples(len(s.TestByConv), resamples, seed)
			break
		}
	}
	if rs == nil {
		return r
	}
	// Each system's rates are drawn once, on every core, and read by all
	// its comparisons: with n systems, n draws instead of n(n-1).
	drawn := make([]drawnSystem, len(r.Standings))
	cis := make([]RateCIs, len(r.Standings))
	chunks(len(r.Standings), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s := r.Standings[i]
			if !s.HasOperatingPoint {
				continue
			}
			rates := rs.rates(s.TestByConv)
			cis[i] = cisOf(rates)
			drawn[i].all = drawnOf(rates, Sum(s.TestByConv))
			for _, ms := range p.LatencyBudgetsMS {
				drawn[i].within = append(drawn[i].within, rs.DrawnWithin(s.TestByConv, ms))
			}
		}
	})
	for i, s := range r.Standings {
		if s.HasOperatingPoint {
			r.CIs[s.System] = cis[i]
		}
	}
	var pairs [][2]int
	for i, a := range r.Standings {
		for j := i + 1; j < len(r.Standings); j++ {
			if a.HasOperatingPoint && r.Standings[j].HasOperatingPoint {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	if len(pairs) == 0 {
		return r
	}
	r.Paired = make([]PairedComparison, len(pairs))
	chunks(len(pairs), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			i, j := pairs[k][0], pairs[k][1]
			c := PairedComparison{A: r.Standings[i].System, B: r.Standings[j].System}
			c.Recall, c.FPRate = Compare(drawn[i].all, drawn[j].all)
			for b := range p.LatencyBudgetsMS {
				recall, _ := Compare(drawn[i].within[b], drawn[j].within[b])
				c.RecallWithin = append(c.RecallWithin, recall)
			}
			r.Paired[k] = c
		}
	})
	return r
}

// drawnSystem is one system's rates on the resamples: on its counts, and
// on its counts within each latency budget.
type drawnSystem struct {
	all    Drawn
	within []Drawn
}
