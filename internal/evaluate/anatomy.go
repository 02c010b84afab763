package evaluate

import (
	"cmp"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/report"
)

// anatomy computes the error anatomy of docs/protocol.md#breakdowns-and-error-anatomy from the test events:
// INT recall and FP by claim length in words (1-3, 4-8, 9+); EOT FP on holds
// ending a question vs a statement, and on contested vs uncontested holds.
// Corpora without anatomy labels (real recordings) get none.
func anatomy(in *Input, task floor.Task, gold *floor.GoldSet, events []EventRow) []AnatomyRow {
	type cell struct{ hits, n int }
	cells := map[[2]string]*cell{}
	var order [][2]string
	add := func(factor, value string, hit bool) {
		k := [2]string{factor, value}
		c, ok := cells[k]
		if !ok {
			c = &cell{}
			cells[k] = c
			order = append(order, k)
		}
		c.n++
		if hit {
			c.hits++
		}
	}
	e := 0
	for _, g := range gold.Conversations {
		conv := in.Corpus.Conversations[g.ID]
		tg := g.Task(task)
		a := conv.Anatomy
		if a == nil {
			e += len(tg.Positives) + len(tg.Negatives)
			continue
		}
		for i := range tg.Positives {
			if task == floor.TaskINT && i < len(a.ClaimWords) {
				add("claim_words", floor.ClaimLengthBand(a.ClaimWords[i]), events[e].Outcome == "TP")
			}
			e++
		}
		for i := range tg.Negatives {
			fp := events[e].Outcome == "FP"
			switch {
			case task == floor.TaskINT && i < len(a.NegativeWords):
				add("negative_words", floor.ClaimLengthBand(a.NegativeWords[i]), fp)
			case task == floor.TaskEOT && i < len(a.HoldQuestion):
				add("hold_ending", map[bool]string{true: "question", false: "statement"}[a.HoldQuestion[i]], fp)
				add("hold", map[bool]string{true: "contested", false: "uncontested"}[a.HoldContested[i]], fp)
			}
			e++
		}
	}
	var rows []AnatomyRow
	for _, k := range order {
		c := cells[k]
		metric := "fp_rate"
		if k[0] == "claim_words" {
			metric = "recall"
		}
		rate := report.Num(float64(c.hits) / float64(c.n))
		rows = append(rows, AnatomyRow{Factor: k[0], Value: k[1], N: c.n, Rate: rate, Metric: metric})
	}
	sortAnatomy(rows)
	return rows
}

// anatomyOrder puts bands and categories in reading order.
var anatomyOrder = map[string]int{"1-3": 0, "4-8": 1, "9+": 2, "question": 0, "statement": 1, "contested": 0, "uncontested": 1}

func sortAnatomy(rows []AnatomyRow) {
	slices.SortStableFunc(rows, func(a, b AnatomyRow) int {
		return cmp.Or(cmp.Compare(a.Factor, b.Factor), cmp.Compare(anatomyOrder[a.Value], anatomyOrder[b.Value]))
	})
}
