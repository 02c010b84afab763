package report

import (
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// standing is a row with test counts tp, fn and, under the span window,
// fp and tn.
func standing(system, status string, tp, fn, fp, tn int) StandingRow {
	w := WindowRate{FP: fp, TN: tn, FPRate: Num(float64(fp) / float64(fp+tn))}
	return StandingRow{System: system, Status: status, Test: &TaskMetrics{TP: tp, FN: fn, FP: fp, TN: tn,
		Recall: Num(float64(tp) / float64(tp+fn)), FPRate: w.FPRate, FPRateByWindow: WindowRates{Span: w, Anchored: w}}}
}

// The reading says what a user would otherwise misread from the table:
// systems ranked first by never firing are not winners, and a test split
// with few negatives leaves no room for a false alarm.
func TestReading(t *testing.T) {
	cases := []struct {
		name string
		lb   TaskLeaderboard
		want []string
	}{
		{"few negatives (tiny)", TaskLeaderboard{Task: floor.TaskEOT, NegativeWindow: score.SpanWindow, Rows: []StandingRow{
			standing("rms", StatusNeverFires, 0, 28, 0, 6),
			standing("silero", StatusNeverFires, 0, 28, 0, 6),
			standing("webrtcvad", StatusOverBudget, 19, 9, 4, 2),
			standing("rms-endpointer", StatusOverBudget, 26, 2, 3, 3),
			standing("silent-over", StatusOverBudget, 0, 28, 0, 6),
		}}, []string{
			"No system fires within the budget (test fp ≤ 0.15).",
			"rms and silero rank in budget only by never firing: recall 0, no turn ends detected.",
			"Out of budget: rms-endpointer detects 93% of turn ends (test fp 0.500), webrtcvad 68% (fp 0.667).",
			"Test holds 6 negatives: one false alarm is fp 0.167, above the 0.15 budget, so only a system that never fires can be in budget here; systems that fire are ranked on a larger corpus.",
		}},
		{"enough negatives", TaskLeaderboard{Task: floor.TaskINT, NegativeWindow: score.SpanWindow, Rows: []StandingRow{
			standing("a", StatusInBudget, 45, 5, 4, 36),
			standing("b", StatusInBudget, 30, 20, 2, 38),
			standing("gate", StatusNeverFires, 0, 50, 0, 40),
		}}, []string{
			"In budget and firing: a detects 90% of interruptions (test fp 0.100), b 60% (fp 0.050).",
			"gate ranks in budget only by never firing: recall 0, no interruptions detected.",
			"Test holds 40 negatives, so a system may fire on at most 6 of them (fp ≤ 0.15).",
		}},
		{"empty", TaskLeaderboard{Task: floor.TaskEOT}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.lb.Reading(0.15); !slices.Equal(got, c.want) {
				t.Errorf("reading:\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
