package score

import (
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
