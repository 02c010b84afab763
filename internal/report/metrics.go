package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/score"
)

// Num is a float that is written to JSON as null when it is NaN or infinite
// (an undefined rate or a percentile of nothing).
type Num float64

// MarshalJSON writes null for NaN and infinities.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	if f == 0 {
		f = 0 // -0 prints as 0
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// LatencyMS are latency percentiles in milliseconds.
type LatencyMS struct {
	P10 Num `json:"p10"`
	P50 Num `json:"p50"`
	P90 Num `json:"p90"`
}

// CI95 holds 95% intervals as [lo, hi] pairs.
type CI95 struct {
	Recall [2]Num `json:"recall"`
	FPRate [2]Num `json:"fp_rate"`
}

// TaskMetrics is the JSON shape of one task's result: counts and rates
// under the negative window scored with, recall within each latency
// budget, and fp_rate under every negative window.
type TaskMetrics struct {
	TP             int          `json:"tp"`
	FN             int          `json:"fn"`
	FP             int          `json:"fp"`
	TN             int          `json:"tn"`
	Recall         Num          `json:"recall"`
	RecallWithinMS RecallWithin `json:"recall_within_ms,omitempty"`
	FPRate         Num          `json:"fp_rate"`
	FPRateByWindow WindowRates  `json:"fp_rate_by_window"`
	LatencyMS      LatencyMS    `json:"latency_ms"`
	CI95           *CI95        `json:"ci95,omitempty"`
}

// WindowRates are fp_rate under each negative window
// (docs/protocol.md#negative-window).
type WindowRates struct {
	Span     WindowRate `json:"span"`
	Anchored WindowRate `json:"anchored"`
}

// Under returns the rate under w.
func (r WindowRates) Under(w score.NegativeWindow) WindowRate {
	if w == score.AnchoredWindow {
		return r.Anchored
	}
	return r.Span
}

// WindowRate is fp_rate under one negative window, with its 95% interval
// when bootstrapped.
type WindowRate struct {
	FP     int     `json:"fp"`
	TN     int     `json:"tn"`
	FPRate Num     `json:"fp_rate"`
	CI95   *[2]Num `json:"ci95,omitempty"`
}

func windowRate(n score.NegativeCounts) WindowRate {
	return WindowRate{FP: n.FP, TN: n.TN, FPRate: Num(n.FPRate())}
}

// Metrics converts counts to their JSON shape, with recall within each of
// the latency budgets (docs/protocol.md#recall-within-a-latency-budget).
func Metrics(c score.Counts, budgetsMS []int) TaskMetrics {
	return MetricsAt(c, c.Latency(), budgetsMS)
}

// MetricsAt is Metrics with the counts' latency percentiles given
// (score.RowLatencies).
func MetricsAt(c score.Counts, l score.Latency, budgetsMS []int) TaskMetrics {
	m := TaskMetrics{
		TP: c.TP, FN: c.FN, FP: c.FP, TN: c.TN,
		Recall: Num(c.Recall()), FPRate: Num(c.FPRate()),
		FPRateByWindow: WindowRates{windowRate(c.Windows.Span), windowRate(c.Windows.Anchored)},
		LatencyMS:      LatencyMS{Num(l.P10), Num(l.P50), Num(l.P90)},
	}
	for _, ms := range budgetsMS {
		m.RecallWithinMS = append(m.RecallWithinMS, BudgetRecall{ms, Num(c.RecallWithin(ms))})
	}
	return m
}

// WithCI returns m with the given intervals attached.
func (m TaskMetrics) WithCI(ci score.RateCIs) TaskMetrics {
	m.CI95 = &CI95{
		Recall: numPair(ci.Recall),
		FPRate: numPair(ci.FPRate),
	}
	span, anchored := numPair(ci.Windows.Span), numPair(ci.Windows.Anchored)
	m.FPRateByWindow.Span.CI95, m.FPRateByWindow.Anchored.CI95 = &span, &anchored
	return m
}

func numPair(iv score.Interval) [2]Num { return [2]Num{Num(iv.Lo), Num(iv.Hi)} }

// RecallWithin is recall within each latency budget, by ascending budget;
// in JSON an object from the budget in ms to the recall,
// {"250": 0.41, "500": 0.62, "1000": 0.7}, in that order.
type RecallWithin []BudgetRecall

// BudgetRecall is recall within one latency budget.
type BudgetRecall struct {
	BudgetMS int
	Recall   Num
}

// MarshalJSON writes the object in budget order.
func (r RecallWithin) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, b := range r {
		if i > 0 {
			out = append(out, ',')
		}
		v, err := b.Recall.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out = append(strconv.AppendQuote(out, strconv.Itoa(b.BudgetMS)), ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads the object; keys must be budgets in whole ms.
func (r *RecallWithin) UnmarshalJSON(data []byte) error {
	var raw map[string]Num
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(RecallWithin, 0, len(raw))
	for k, v := range raw {
		ms, err := strconv.Atoi(k)
		if err != nil || ms < 0 {
			return fmt.Errorf("recall_within_ms: key %q is not a budget in whole ms", k)
		}
		out = append(out, BudgetRecall{ms, v})
	}
	slices.SortFunc(out, func(a, b BudgetRecall) int { return cmp.Compare(a.BudgetMS, b.BudgetMS) })
	*r = out
	return nil
}

// At returns the recall within budgetMS, NaN when r has no such budget.
func (r RecallWithin) At(budgetMS int) float64 {
	for _, b := range r {
		if b.BudgetMS == budgetMS {
			return float64(b.Recall)
		}
	}
	return math.NaN()
}

// Budgets are the budgets of r, in order.
func (r RecallWithin) Budgets() []int {
	out := make([]int, len(r))
	for i, b := range r {
		out[i] = b.BudgetMS
	}
	return out
}

// Cell formats the recalls as one table cell, "0.412/0.620/0.700", and
// header names what it holds, "recall ≤ 250/500/1000 ms".
func (r RecallWithin) Cell() string {
	if len(r) == 0 {
		return Undefined
	}
	parts := make([]string, len(r))
	for i, b := range r {
		parts[i] = Rate(float64(b.Recall))
	}
	return strings.Join(parts, "/")
}

// RecallWithinHeader is the header of the Cell column for budgets.
func RecallWithinHeader(budgetsMS []int) string {
	parts := make([]string, len(budgetsMS))
	for i, ms := range budgetsMS {
		parts[i] = strconv.Itoa(ms)
	}
	return "recall ≤ " + strings.Join(parts, "/") + " ms"
}

// Rate formats a rate with three decimals, or an em dash when undefined.
func Rate(v float64) string { return Fixed(v, 3) }

// Latencies formats p10/p50/p90 in whole ms, or an em dash without TPs.
func Latencies(l score.Latency) string {
	if math.IsNaN(l.P50) {
		return Undefined
	}
	return Fixed(l.P10, 0) + "/" + Fixed(l.P50, 0) + "/" + Fixed(l.P90, 0)
}

// RateWithCI formats a rate and, when defined, its interval.
func RateWithCI(v float64, ci score.Interval) string {
	if math.IsNaN(ci.Lo) {
		return Rate(v)
	}
	return fmt.Sprintf("%s [%s, %s]", Rate(v), Rate(ci.Lo), Rate(ci.Hi))
}
