package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
)

// Standing statuses.
const (
	StatusInBudget = "in budget"
	// StatusNeverFires is an in-budget system whose test predictions
	// count nowhere: its rank is the protocol's, its recall 0 not a win.
	StatusNeverFires  = "in budget, never fires"
	StatusOverBudget  = "out of budget"
	StatusNoOperating = "no operating point"
	StatusUnsupported = "not supported"
)

// StandingRow is the JSON shape of one system on a task's leaderboard.
type StandingRow struct {
	Rank   *int   `json:"rank"` // null when out of budget
	System string `json:"system"`
	Status string `json:"status"` // under the leaderboard's negative window
	// InBudgetByWindow is the budget rule under each negative window at
	// the system's operating point; BlindSpot marks a system in budget
	// under span and not under anchored (docs/protocol.md#negative-window).
	InBudgetByWindow WindowBudgets `json:"in_budget_by_window"`
	BlindSpot        bool          `json:"blind_spot"`
	Theta            Num           `json:"theta"`
	// OperatingPoint is how a system without a threshold got its
	// operating point ("as it behaves": a seated agent), absent otherwise.
	OperatingPoint string       `json:"operating_point,omitempty"`
	NCandidates    int          `json:"n_candidates"`
	Dev            *TaskMetrics `json:"dev"`
	Test           *TaskMetrics `json:"test"`
}

// WindowBudgets is the JSON shape of score.WindowBudgets.
type WindowBudgets struct {
	Span     bool `json:"span"`
	Anchored bool `json:"anchored"`
}

// NewWindowBudgets converts score.WindowBudgets to its JSON shape.
func NewWindowBudgets(b score.WindowBudgets) WindowBudgets { return WindowBudgets{b.Span, b.Anchored} }

// BlindSpot reports in budget under span and not under anchored.
func (b WindowBudgets) BlindSpot() bool { return b.Span && !b.Anchored }

// PairedComparison is the JSON shape of score.PairedComparison: two
// systems of one leaderboard compared on the same resamples, in recall,
// fp_rate and recall within each latency budget. (A paired comparison of
// one system between two bundles is a compare.PairedRow.)
type PairedComparison struct {
	A            string             `json:"a"`
	B            string             `json:"b"`
	Recall       Difference         `json:"recall"`
	RecallWithin []BudgetDifference `json:"recall_within_ms,omitempty"`
	FPRate       Difference         `json:"fp_rate"`
}

// BudgetDifference is the paired difference of recall within one
// latency budget.
type BudgetDifference struct {
	BudgetMS int `json:"budget_ms"`
	Difference
}

// Difference is the JSON shape of score.Difference.
type Difference struct {
	Delta Num    `json:"delta"`
	CI95  [2]Num `json:"ci95"`
	P     Num    `json:"p"`
}

// TaskLeaderboard is one task's leaderboard with its paired comparisons,
// ranked under NegativeWindow, reporting recall within LatencyBudgetsMS.
type TaskLeaderboard struct {
	Task             floor.Task           `json:"task"`
	NegativeWindow   score.NegativeWindow `json:"negative_window"`
	LatencyBudgetsMS []int                `json:"latency_budgets_ms"`
	Rows             []StandingRow        `json:"rows"`
	Paired           []PairedComparison   `json:"paired,omitempty"`
}

// NewTaskLeaderboard builds the JSON shape of a ranking: its standings,
// their test intervals when present, and its paired comparisons.
func NewTaskLeaderboard(task floor.Task, r score.Ranking) TaskLeaderboard {
	lb := TaskLeaderboard{Task: task, NegativeWindow: r.NegativeWindow, LatencyBudgetsMS: r.LatencyBudgetsMS}
	for _, s := range r.Standings {
		row := StandingRow{System: s.System, Theta: Num(math.NaN()), OperatingPoint: s.OperatingPoint, NCandidates: s.Candidates,
			InBudgetByWindow: NewWindowBudgets(s.InBudgetUnder), BlindSpot: s.InBudgetUnder.BlindSpot()}
		switch {
		case s.InBudget:
			rank := s.Rank
			row.Rank, row.Status = &rank, StatusInBudget
			if s.Test.Silent() {
				row.Status = StatusNeverFires
			}
		case s.HasOperatingPoint:
			row.Status = StatusOverBudget
		case s.Unsupported:
			row.Status = StatusUnsupported
		default:
			row.Status = StatusNoOperating
		}
		if s.HasOperatingPoint {
			row.Theta = Num(s.Theta)
			// Stored evaluations keep no dev latencies to read recall
			// within a budget from: the leaderboard reports it on test.
			dev, test := Metrics(s.Dev, nil), Metrics(s.Test, r.LatencyBudgetsMS)
			if ci, ok := r.CIs[s.System]; ok {
				test = test.WithCI(ci)
			}
			row.Dev, row.Test = &dev, &test
		}
		lb.Rows = append(lb.Rows, row)
	}
	for _, p := range r.Paired {
		lb.AddPaired(p, r.LatencyBudgetsMS)
	}
	return lb
}

// AddPaired records a paired comparison; budgetsMS name its recall
// within differences in order.
func (lb *TaskLeaderboard) AddPaired(p score.PairedComparison, budgetsMS []int) {
	row := PairedComparison{A: p.A, B: p.B, Recall: NewDifference(p.Recall), FPRate: NewDifference(p.FPRate)}
	for i, d := range p.RecallWithin {
		row.RecallWithin = append(row.RecallWithin, BudgetDifference{budgetsMS[i], NewDifference(d)})
	}
	lb.Paired = append(lb.Paired, row)
}

// NewDifference converts score.Difference to its JSON shape.
func NewDifference(d score.Difference) Difference {
	return Difference{Num(d.Delta), [2]Num{Num(d.CI.Lo), Num(d.CI.Hi)}, Num(d.P)}
}

// Table renders the leaderboard for people: in-budget systems by rank,
// out-of-budget ones below, marked; test fp_rate under both negative
// windows, a system in the blind spot marked in its status.
func (lb *TaskLeaderboard) Table() *Table {
	t := &Table{
		Title: lb.Title(""),
		Header: []string{"rank", "system", "θ", "dev recall", "dev fp", "test recall", RecallWithinHeader(lb.LatencyBudgetsMS),
			"test fp span", "test fp anchored", "test lat p50 ms", "status"},
		Labels: 2,
	}
	blind := false
	for _, r := range lb.Rows {
		rank := "—"
		if r.Rank != nil {
			rank = fmt.Sprint(*r.Rank)
		}
		status := r.Status
		if r.BlindSpot {
			status += BlindSpotMark
			blind = true
		}
		cells := []string{rank, r.System, "—", "—", "—", "—", "—", "—", "—", "—", status}
		if r.Test != nil {
			switch {
			case r.OperatingPoint != "": // a seated agent: what it does
				cells[2] = r.OperatingPoint
			case !math.IsNaN(float64(r.Theta)): // a submission has no threshold
				cells[2] = Fixed(float64(r.Theta), 4)
			}
			cells[3], cells[4] = Rate(float64(r.Dev.Recall)), Rate(float64(r.Dev.FPRate))
			cells[5], cells[6] = withCI(r.Test.Recall, r.Test.CI95, true), r.Test.RecallWithinMS.Cell()
			cells[7], cells[8] = r.Test.FPRateByWindow.Span.Cell(), r.Test.FPRateByWindow.Anchored.Cell()
			cells[9] = Fixed(float64(r.Test.LatencyMS.P50), 0)
		}
		t.Rows = append(t.Rows, cells)
	}
	if blind {
		t.Caption = BlindSpotCaption
	}
	return t
}

// Title names the leaderboard, its corpus when given and the negative
// window it ranks under.
func (lb *TaskLeaderboard) Title(corpus string) string {
	on := ""
	if corpus != "" {
		on = " on " + corpus
	}
	return fmt.Sprintf("%s leaderboard%s (negative window: %s)", taskName(lb.Task), on, lb.NegativeWindow)
}

// BlindSpotMark follows the status of a system in the blind spot, and
// BlindSpotCaption says what it means under a table that shows it.
const (
	BlindSpotMark    = " · blind spot"
	BlindSpotCaption = "blind spot: in budget under the span negative window, not under the anchored one: its false alarms fall just after negative spans end, where the papers' rule does not look"
)

// Cell formats the rate with its interval when it has one.
func (r WindowRate) Cell() string {
	if r.CI95 == nil {
		return Rate(float64(r.FPRate))
	}
	return RateWithCI(float64(r.FPRate), score.Interval{Lo: float64(r.CI95[0]), Hi: float64(r.CI95[1])})
}

// PairedTable renders the paired comparisons; recall within each latency
// budget shows its differences in one cell (their intervals are in the
// JSON).
func (lb *TaskLeaderboard) PairedTable() *Table {
	t := &Table{
		Title:  fmt.Sprintf("%s paired comparisons (A − B, test, same resamples)", taskName(lb.Task)),
		Header: []string{"A", "B", "Δ recall", "95% CI", "p", "Δ " + RecallWithinHeader(lb.LatencyBudgetsMS), "Δ fp_rate", "95% CI", "p"},
		Labels: 2,
	}
	for _, p := range lb.Paired {
		within := make([]string, len(p.RecallWithin))
		for i, d := range p.RecallWithin {
			within[i] = signed(d.Delta)
		}
		t.Rows = append(t.Rows, []string{p.A, p.B,
			signed(p.Recall.Delta), interval(p.Recall.CI95), pValue(p.Recall.P), orUndefined(strings.Join(within, "/")),
			signed(p.FPRate.Delta), interval(p.FPRate.CI95), pValue(p.FPRate.P)})
	}
	return t
}

func orUndefined(s string) string {
	if s == "" {
		return Undefined
	}
	return s
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
// own, empty cells where a value is undefined. The recall within each
// latency budget follows test recall, one column a budget.
func CSVHeader(budgetsMS []int) []string {
	h := []string{"task", "rank", "system", "status", "blind_spot", "theta", "dev_recall", "dev_fp_rate",
		"test_recall", "test_recall_lo", "test_recall_hi"}
	for _, ms := range budgetsMS {
		h = append(h, fmt.Sprintf("test_recall_within_%d_ms", ms))
	}
	return append(h, "test_fp_rate", "test_fp_rate_lo", "test_fp_rate_hi",
		"test_fp_rate_span", "test_fp_rate_span_lo", "test_fp_rate_span_hi",
		"test_fp_rate_anchored", "test_fp_rate_anchored_lo", "test_fp_rate_anchored_hi",
		"test_latency_p50_ms", "test_tp", "test_fn", "test_fp", "test_tn")
}

// CSVRows returns one row per system in leaderboard order, in the columns
// of CSVHeader(lb.LatencyBudgetsMS).
func (lb *TaskLeaderboard) CSVRows() [][]string {
	num := func(v Num) string {
		if f := float64(v); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return ""
	}
	undefined := Num(math.NaN())
	pair := func(iv *[2]Num) []string {
		if iv == nil {
			return []string{"", ""}
		}
		return []string{num(iv[0]), num(iv[1])}
	}
	width := len(CSVHeader(lb.LatencyBudgetsMS))
	var rows [][]string
	for _, r := range lb.Rows {
		rank := ""
		if r.Rank != nil {
			rank = fmt.Sprint(*r.Rank)
		}
		row := []string{string(lb.Task), rank, r.System, r.Status, strconv.FormatBool(r.BlindSpot), num(r.Theta)}
		if r.Test == nil {
			rows = append(rows, append(row, make([]string, width-len(row))...))
			continue
		}
		recallCI, fpCI := [2]Num{undefined, undefined}, [2]Num{undefined, undefined}
		if r.Test.CI95 != nil {
			recallCI, fpCI = r.Test.CI95.Recall, r.Test.CI95.FPRate
		}
		row = append(row, num(r.Dev.Recall), num(r.Dev.FPRate), num(r.Test.Recall), num(recallCI[0]), num(recallCI[1]))
		for _, ms := range lb.LatencyBudgetsMS {
			row = append(row, num(Num(r.Test.RecallWithinMS.At(ms))))
		}
		row = append(row, num(r.Test.FPRate), num(fpCI[0]), num(fpCI[1]))
		for _, w := range []WindowRate{r.Test.FPRateByWindow.Span, r.Test.FPRateByWindow.Anchored} {
			row = append(append(row, num(w.FPRate)), pair(w.CI95)...)
		}
		row = append(row, num(r.Test.LatencyMS.P50), fmt.Sprint(r.Test.TP), fmt.Sprint(r.Test.FN), fmt.Sprint(r.Test.FP), fmt.Sprint(r.Test.TN))
		rows = append(rows, row)
	}
	return rows
}
