package score

import (
	"testing"
)

func TestLeaderboardOrder(t *testing.T) {
	eval := func(name string, op, in bool, tp, fn int) *TaskEvaluation {
		return &TaskEvaluation{System: name, HasOperatingPoint: op, InBudget: in, Test: Counts{TP: tp, FN: fn}}
	}
	standings := Leaderboard([]*TaskEvaluation{
		eval("noop", false, false, 0, 0),
		eval("loud", true, false, 10, 0), // best recall but out of budget
		eval("b", true, true, 6, 4),
		eval("a", true, true, 6, 4), // tie with b: by name
		eval("best", true, true, 8, 2),
	})
	want := []struct {
		name string
		rank int
	}{{"best", 1}, {"a", 2}, {"b", 3}, {"loud", 0}, {"noop", 0}}
	for i, w := range want {
		if standings[i].System != w.name || standings[i].Rank != w.rank {
			t.Fatalf("position %d: %s rank %d, want %s rank %d", i, standings[i].System, standings[i].Rank, w.name, w.rank)
		}
	}
}
