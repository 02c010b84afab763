package score

import (
	"testing"
)

func TestLeaderboardOrder(t *testing.T) {
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
