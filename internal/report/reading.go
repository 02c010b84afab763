package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
)

// Reading says in plain words what a task's leaderboard shows on test
// under a test false-alarm budget: which systems fire within it, which
// rank only because they never fire (in budget with recall 0, not a
// win), how much of the task the systems out of budget detect, and how
// many false alarms the test split's negatives leave a system
// (docs/protocol.md#budgets-and-the-leaderboard). One sentence a line; none for an
// empty leaderboard.
func (lb TaskLeaderboard) Reading(testBudget float64) []string {
	events := map[floor.Task]string{floor.TaskEOT: "turn ends", floor.TaskINT: "interruptions"}[lb.Task]
	var inBudget, silent, over []StandingRow
	negatives := -1
	for _, r := range lb.Rows {
		if r.Test == nil {
			continue
		}
		w := r.Test.FPRateByWindow.Under(lb.NegativeWindow)
		negatives = max(negatives, w.FP+w.TN)
		switch r.Status {
		case StatusInBudget:
			inBudget = append(inBudget, r)
		case StatusNeverFires:
			silent = append(silent, r)
		case StatusOverBudget:
			if r.Test.TP+r.Test.FP > 0 {
				over = append(over, r)
			}
		}
	}
	var lines []string
	if len(inBudget) > 0 {
		lines = append(lines, fmt.Sprintf("In budget and firing: %s.", lb.detections(inBudget, events)))
	} else if len(lb.Rows) > 0 {
		lines = append(lines, fmt.Sprintf("No system fires within the budget (test fp ≤ %.2f).", testBudget))
	}
	if len(silent) > 0 {
		names := make([]string, len(silent))
		for i, r := range silent {
			names[i] = r.System
		}
		lines = append(lines, fmt.Sprintf("%s %s in budget only by never firing: recall 0, no %s detected.",
			joinAnd(names), plural(len(names), "ranks", "rank"), events))
	}
	if len(over) > 0 {
		slices.SortStableFunc(over, func(a, b StandingRow) int { return cmp.Compare(b.Test.Recall, a.Test.Recall) })
		lines = append(lines, fmt.Sprintf("Out of budget: %s.", lb.detections(over, events)))
	}
	if negatives > 0 {
		allowed := int(math.Floor(testBudget*float64(negatives) + 1e-9))
		line := fmt.Sprintf("Test holds %d negatives, so a system may fire on at most %d of them (fp ≤ %.2f)", negatives, allowed, testBudget)
		if allowed == 0 {
			line = fmt.Sprintf("Test holds %d negatives: one false alarm is fp %.3f, above the %.2f budget, so only a system that never fires can be in budget here; systems that fire are ranked on a larger corpus",
				negatives, 1/float64(negatives), testBudget)
		}
		lines = append(lines, line+".")
	}
	return lines
}

// detections lists rows as "name detects 93% of events (test fp 0.500)",
// the first in full and the others short.
func (lb TaskLeaderboard) detections(rows []StandingRow, events string) string {
	parts := make([]string, len(rows))
	for i, r := range rows {
		fp := r.Test.FPRateByWindow.Under(lb.NegativeWindow).FPRate
		if i == 0 {
			parts[i] = fmt.Sprintf("%s detects %.0f%% of %s (test fp %.3f)", r.System, 100*float64(r.Test.Recall), events, float64(fp))
			continue
		}
		parts[i] = fmt.Sprintf("%s %.0f%% (fp %.3f)", r.System, 100*float64(r.Test.Recall), float64(fp))
	}
	return strings.Join(parts, ", ")
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
