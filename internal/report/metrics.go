package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

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

// TaskMetrics is the JSON shape of one task's result.
type TaskMetrics struct {
	TP        int       `json:"tp"`
	FN        int       `json:"fn"`
	FP        int       `json:"fp"`
	TN        int       `json:"tn"`
	Recall    Num       `json:"recall"`
	FPRate    Num       `json:"fp_rate"`
	LatencyMS LatencyMS `json:"latency_ms"`
	CI95      *CI95     `json:"ci95,omitempty"`
}

// Metrics converts counts to their JSON shape.
func Metrics(c score.Counts) TaskMetrics { return MetricsAt(c, c.Latency()) }

// MetricsAt is Metrics with the counts' latency percentiles given
// (score.RowLatencies).
func MetricsAt(c score.Counts, l score.Latency) TaskMetrics {
	return TaskMetrics{
		TP: c.TP, FN: c.FN, FP: c.FP, TN: c.TN,
		Recall: Num(c.Recall()), FPRate: Num(c.FPRate()),
		LatencyMS: LatencyMS{Num(l.P10), Num(l.P50), Num(l.P90)},
	}
}

// WithCI returns m with the given intervals attached.
func (m TaskMetrics) WithCI(ci score.RateCIs) TaskMetrics {
	m.CI95 = &CI95{
		Recall: [2]Num{Num(ci.Recall.Lo), Num(ci.Recall.Hi)},
		FPRate: [2]Num{Num(ci.FPRate.Lo), Num(ci.FPRate.Hi)},
	}
	return m
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
