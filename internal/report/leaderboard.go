package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// Standing statuses.
const (
	StatusInBudget    = "in budget"
	StatusOverBudget  = "out of budget"
	StatusNoOperating = "no operating point"
	StatusUnsupported = "not supported"
)

// StandingRow is the JSON shape of one system on a task's leaderboard.
type StandingRow struct {
	Rank        *int         `json:"rank"` // null when out of budget
	System      string       `json:"system"`
	Status      string       `json:"status"`
	Theta       Num          `json:"theta"`
	NCandidates int          `json:"n_candidates"`
	Dev         *TaskMetrics `json:"dev"`
	Test        *TaskMetrics `json:"test"`
}

// PairedRow is the JSON shape of a paired comparison of two systems.
type PairedRow struct {
	A      string     `json:"a"`
	B      string     `json:"b"`
	Recall Difference `json:"recall"`
	FPRate Difference `json:"fp_rate"`
}

// Difference is the JSON shape of score.Difference.
type Difference struct {
	Delta Num    `json:"delta"`
	CI95  [2]Num `json:"ci95"`
	P     Num    `json:"p"`
}

// TaskLeaderboard is one task's leaderboard with its paired comparisons.
type TaskLeaderboard struct {
	Task   floor.Task    `json:"task"`
	Rows   []StandingRow `json:"rows"`
	Paired []PairedRow   `json:"paired,omitempty"`
}

// NewTaskLeaderboard builds the JSON shape of a ranking: its standings,
// their test intervals when present, and its paired comparisons.
func NewTaskLeaderboard(task floor.Task, r score.Ranking) TaskLeaderboard {
	lb := TaskLeaderboard{Task: task}
	for _, s := range r.Standings {
		row := StandingRow{System: s.System, Theta: Num(math.NaN()), NCandidates: s.Candidates}
		switch {
		case s.InBudget:
			rank := s.Rank
			row.Rank, row.Status = &rank, StatusInBudget
		case s.HasOperatingPoint:
			row.Status = StatusOverBudget
		case s.Unsupported:
			row.Status = StatusUnsupported
		default:
			row.Status = StatusNoOperating
		}
		if s.HasOperatingPoint {
			row.Theta = Num(s.Theta)
			dev, test := Metrics(s.Dev), Metrics(s.Test)
			if ci, ok := r.CIs[s.System]; ok {
				test = test.WithCI(ci)
			}
			row.Dev, row.Test = &dev, &test
		}
		lb.Rows = append(lb.Rows, row)
	}
	for _, p := range r.Paired {
		lb.AddPaired(p.A, p.B, p.Recall, p.FPRate)
	}
	return lb
}

// AddPaired records a paired comparison of systems a and b.
func (lb *TaskLeaderboard) AddPaired(a, b string, recall, fpRate score.Difference) {
	conv := func(d score.Difference) Difference {
		return Difference{Num(d.Delta), [2]Num{Num(d.CI.Lo), Num(d.CI.Hi)}, Num(d.P)}
	}
	lb.Paired = append(lb.Paired, PairedRow{a, b, conv(recall), conv(fpRate)})
}

// Table renders the leaderboard for people: in-budget systems by rank,
// out-of-budget ones below, marked.
func (lb *TaskLeaderboard) Table() *Table {
	t := &Table{
		Title:  fmt.Sprintf("%s leaderboard", taskName(lb.Task)),
		Header: []string{"rank", "system", "θ", "dev recall", "dev fp", "test recall", "test fp", "test lat p50 ms", "status"},
		Labels: 2,
	}
	for _, r := range lb.Rows {
		rank := "—"
		if r.Rank != nil {
			rank = fmt.Sprint(*r.Rank)
		}
		cells := []string{rank, r.System, "—", "—", "—", "—", "—", "—", r.Status}
		if r.Test != nil {
			if !math.IsNaN(float64(r.Theta)) { // a submission has no threshold
				cells[2] = Fixed(float64(r.Theta), 4)
			}
			cells[3], cells[4] = Rate(float64(r.Dev.Recall)), Rate(float64(r.Dev.FPRate))
			cells[5], cells[6] = withCI(r.Test.Recall, r.Test.CI95, true), withCI(r.Test.FPRate, r.Test.CI95, false)
			cells[7] = Fixed(float64(r.Test.LatencyMS.P50), 0)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// PairedTable renders the paired comparisons.
func (lb *TaskLeaderboard) PairedTable() *Table {
	t := &Table{
		Title:  fmt.Sprintf("%s paired comparisons (A − B, test, same resamples)", taskName(lb.Task)),
		Header: []string{"A", "B", "Δ recall", "95% CI", "p", "Δ fp_rate", "95% CI", "p"},
		Labels: 2,
	}
	for _, p := range lb.Paired {
		t.Rows = append(t.Rows, []string{p.A, p.B,
			signed(p.Recall.Delta), interval(p.Recall.CI95), pValue(p.Recall.P),
			signed(p.FPRate.Delta), interval(p.FPRate.CI95), pValue(p.FPRate.P)})
	}
	return t
}

func withCI(v Num, ci *CI95, recall bool) string {
	if ci == nil {
		return Rate(float64(v))
	}
	iv := ci.FPRate
	if recall {
		iv = ci.Recall
	}
	return RateWithCI(float64(v), score.Interval{Lo: float64(iv[0]), Hi: float64(iv[1])})
}

func signed(v Num) string { return Signed(float64(v), 3) }

func interval(iv [2]Num) string {
	if math.IsNaN(float64(iv[0])) {
		return Undefined
	}
	return "[" + Signed(float64(iv[0]), 3) + ", " + Signed(float64(iv[1]), 3) + "]"
}

func pValue(p Num) string { return PValue(float64(p)) }

func taskName(t floor.Task) string {
	if t == floor.TaskINT {
		return "INT"
	}
	return "EOT"
}

// CSVHeader and CSVRows give the leaderboard as plain numeric columns for
// spreadsheets and scripts: full precision, intervals in columns of their
// own, empty cells where a value is undefined.
var CSVHeader = []string{"task", "rank", "system", "status", "theta", "dev_recall", "dev_fp_rate",
	"test_recall", "test_recall_lo", "test_recall_hi", "test_fp_rate", "test_fp_rate_lo", "test_fp_rate_hi",
	"test_latency_p50_ms", "test_tp", "test_fn", "test_fp", "test_tn"}

// CSVRows returns one row per system in leaderboard order.
func (lb *TaskLeaderboard) CSVRows() [][]string {
	num := func(v Num) string {
		if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return ""
	}
	var rows [][]string
	for _, r := range lb.Rows {
		rank := ""
		if r.Rank != nil {
			rank = fmt.Sprint(*r.Rank)
		}
		row := []string{string(lb.Task), rank, r.System, r.Status, num(r.Theta)}
		if r.Test == nil {
			rows = append(rows, append(row, make([]string, len(CSVHeader)-len(row))...))
			continue
		}
		undefined := Num(math.NaN())
		recallCI, fpCI := [2]Num{undefined, undefined}, [2]Num{undefined, undefined}
		if r.Test.CI95 != nil {
			recallCI, fpCI = r.Test.CI95.Recall, r.Test.CI95.FPRate
		}
		row = append(row, num(r.Dev.Recall), num(r.Dev.FPRate),
			num(r.Test.Recall), num(recallCI[0]), num(recallCI[1]), num(r.Test.FPRate), num(fpCI[0]), num(fpCI[1]),
			num(r.Test.LatencyMS.P50), fmt.Sprint(r.Test.TP), fmt.Sprint(r.Test.FN), fmt.Sprint(r.Test.FP), fmt.Sprint(r.Test.TN))
		rows = append(rows, row)
	}
	return rows
}
