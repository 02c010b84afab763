package score

import "testing"

// The budget rule of docs/protocol.md#budgets-and-the-leaderboard, one
// case a clause: an undefined dev fp_rate is out of budget, an undefined
// test fp_rate is in, a transferred threshold has no dev to check.
func TestInBudget(t *testing.T) {
	t.Parallel()
	p := DefaultParams() // dev budget 0.10, test budget 0.15
	fp := func(fp, tn int) Counts { return Counts{FP: fp, TN: tn} }
	for _, c := range []struct {
		name string
		e    TaskEvaluation
		in   bool
	}{
		{"within both", TaskEvaluation{HasOperatingPoint: true, Dev: fp(1, 9), Test: fp(3, 17)}, true},
		{"dev over", TaskEvaluation{HasOperatingPoint: true, Dev: fp(2, 8), Test: fp(0, 10)}, false},
		{"test over", TaskEvaluation{HasOperatingPoint: true, Dev: fp(0, 10), Test: fp(4, 16)}, false},
		{"no test negatives", TaskEvaluation{HasOperatingPoint: true, Dev: fp(0, 10)}, true},
		{"no dev negatives", TaskEvaluation{HasOperatingPoint: true, Test: fp(0, 10)}, false},
		{"transferred, no dev", TaskEvaluation{HasOperatingPoint: true, Frozen: &FrozenTheta{0.5, "other"}, Test: fp(1, 9)}, true},
		{"transferred, test over", TaskEvaluation{HasOperatingPoint: true, Frozen: &FrozenTheta{0.5, "other"}, Test: fp(2, 8)}, false},
		{"no operating point", TaskEvaluation{Dev: fp(0, 10), Test: fp(0, 10)}, false},
	} {
		if got := p.InBudget(&c.e); got != c.in {
			t.Errorf("%s: in budget %v, want %v", c.name, got, c.in)
		}
	}
}
