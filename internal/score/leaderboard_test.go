package score

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestLeaderboardOrder(t *testing.T) {
	t.Parallel()
	eval := func(name string, op, in bool, tp, fn int, latency ...float64) *TaskEvaluation {
		return &TaskEvaluation{System: name, HasOperatingPoint: op, InBudget: in, Test: Counts{TP: tp, FN: fn, LatenciesMS: latency}}
	}
	standings := Leaderboard([]*TaskEvaluation{
		eval("noop", false, false, 0, 0),
		eval("loud", true, false, 10, 0), // best recall but out of budget
		eval("b", true, true, 6, 4, 300),
		eval("a", true, true, 6, 4, 300),    // tie with b: by name
		eval("fast", true, true, 6, 4, 100), // same recall, lower latency
		eval("nopos", true, true, 0, 0),     // undefined recall: last in budget
		eval("best", true, true, 8, 2),
	})
	want := []struct {
		name string
		rank int
	}{{"best", 1}, {"fast", 2}, {"a", 3}, {"b", 4}, {"nopos", 5}, {"loud", 0}, {"noop", 0}}
	for i, w := range want {
		if standings[i].System != w.name || standings[i].Rank != w.rank {
			t.Fatalf("position %d: %s rank %d, want %s rank %d", i, standings[i].System, standings[i].Rank, w.name, w.rank)
		}
	}
}

// Rank compares recall within each latency budget on the same resamples:
// two systems with the same recall, one of them slower, differ within
// 500 ms and not within 1000 ms.
func TestRankComparesRecallWithinBudgets(t *testing.T) {
	t.Parallel()
	conv := func(latencies ...float64) Counts { return Counts{TP: len(latencies), FN: 1, LatenciesMS: latencies} }
	fast := &TaskEvaluation{System: "fast", HasOperatingPoint: true, InBudget: true,
		TestByConv: []Counts{conv(100, 200), conv(300), conv(150, 120), conv(400)}}
	slow := &TaskEvaluation{System: "slow", HasOperatingPoint: true, InBudget: true,
		TestByConv: []Counts{conv(900, 800), conv(700), conv(950, 600), conv(750)}}
	for _, e := range []*TaskEvaluation{fast, slow} {
		e.Test = Sum(e.TestByConv)
	}
	p := DefaultParams()
	p.LatencyBudgetsMS = []int{500, 1000}
	r := Rank([]*TaskEvaluation{slow, fast}, p, 200, 1)
	if len(r.Paired) != 1 || r.Paired[0].A != "fast" || len(r.Paired[0].RecallWithin) != 2 {
		t.Fatalf("paired %+v", r.Paired)
	}
	c := r.Paired[0]
	if c.Recall.Delta != 0 || c.RecallWithin[0].Delta != 6.0/10 || c.RecallWithin[1].Delta != 0 {
		t.Errorf("recall Δ %v, within 500 Δ %v, within 1000 Δ %v; want 0, 0.6, 0", c.Recall.Delta, c.RecallWithin[0].Delta, c.RecallWithin[1].Delta)
	}
	if c.RecallWithin[0].CI.Lo <= 0 {
		t.Errorf("within 500 ms CI %+v should exclude 0", c.RecallWithin[0].CI)
	}
}

// Rank draws each system's rates once and compares every two from them:
// its intervals and comparisons are, bit for bit, what CIs, Paired and
// PairedWithin give for each system and pair on the same resamples.
func TestRankEqualsPairwiseComparisons(t *testing.T) {
	t.Parallel()
	evals := randomEvaluations(7, 40, 1)
	evals[3].HasOperatingPoint = false
	p := DefaultParams()
	r := Rank(evals, p, 500, 9)
	rs := NewResamples(40, 500, 9)
	var operating []Standing
	for _, s := range r.Standings {
		if s.HasOperatingPoint {
			operating = append(operating, s)
			if got, want := r.CIs[s.System], rs.CIs(s.TestByConv); !sameBits(got, want) {
				t.Errorf("%s: intervals %+v, want %+v", s.System, got, want)
			}
		}
	}
	if _, ok := r.CIs[evals[3].System]; ok || len(r.CIs) != 6 {
		t.Errorf("intervals for %d systems, want the 6 with an operating point", len(r.CIs))
	}
	k := 0
	for i, a := range operating {
		for _, b := range operating[i+1:] {
			want := PairedComparison{A: a.System, B: b.System}
			want.Recall, want.FPRate = rs.Paired(a.TestByConv, b.TestByConv)
			for _, ms := range p.LatencyBudgetsMS {
				want.RecallWithin = append(want.RecallWithin, rs.PairedWithin(a.TestByConv, b.TestByConv, ms))
			}
			if k >= len(r.Paired) || !sameBits(r.Paired[k], want) {
				t.Fatalf("comparison %d: got %+v, want %+v", k, r.Paired[k], want)
			}
			k++
		}
	}
	if k != len(r.Paired) || k != 15 {
		t.Errorf("%d comparisons, want %d (6 systems)", len(r.Paired), k)
	}
}

// randomEvaluations is n systems' test counts on convs conversations,
// with latencies, drawn from seed.
func randomEvaluations(n, convs int, seed uint64) []*TaskEvaluation {
	rng := rand.New(rand.NewPCG(seed, 7))
	var evals []*TaskEvaluation
	for s := range n {
		e := &TaskEvaluation{System: fmt.Sprintf("sys%02d", s), HasOperatingPoint: true, InBudget: true}
		for range convs {
			c := Counts{TP: rng.IntN(8), FN: rng.IntN(4), FP: rng.IntN(3), TN: rng.IntN(12)}
			for range c.TP {
				c.LatenciesMS = append(c.LatenciesMS, 1500*rng.Float64())
			}
			c.Windows.Span = NegativeCounts{FP: c.FP, TN: c.TN}
			c.Windows.Anchored = NegativeCounts{FP: c.FP + rng.IntN(2), TN: c.TN}
			e.TestByConv = append(e.TestByConv, c)
		}
		e.Test = Sum(e.TestByConv)
		evals = append(evals, e)
	}
	return evals
}

// sameBits compares two values field by field with NaN equal to NaN.
func sameBits(a, b any) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}
