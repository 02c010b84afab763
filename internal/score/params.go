package score

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
)

// ProtocolVersion is the version of the scoring code: gold derivation,
// matching, the threshold sweep, the operating point, the bootstrap and
// the evaluation's shape. It is part of every stored evaluation's key, so
// a fix to any of them recomputes evaluations and nothing else; bump it
// with any change that changes a score.
//
// 2: evaluations hold the dev operating curve and the timelines the
// bundle's figures draw.
// 3: the negative window is a parameter; evaluations hold fp_rate under
// both windows and recall within each latency budget.
const ProtocolVersion = 3

// Params are the protocol constants of docs/protocol.md#constants, with the published
// defaults from DefaultParams. Every result records the Params it used.
type Params struct {
	TauPre       float64 `json:"tau_pre_s"`      // matching tolerance before an anchor and a span
	TauMax       float64 `json:"tau_max_s"`      // latency deadline after an anchor
	FPBudgetDev  float64 `json:"fp_budget_dev"`  // dev fp_rate an operating point may have
	FPBudgetTest float64 `json:"fp_budget_test"` // test fp_rate an in-budget system may have
	Candidates   int     `json:"n_quantiles"`    // quantile levels of the candidate thresholds
	Refractory   float64 `json:"refractory_s"`   // minimum time between committed edges
	// NegativeWindow is where an unclaimed prediction fires a negative
	// span (docs/protocol.md#negative-window): it decides fp_rate, the
	// operating point and the budgets. Results give fp_rate under both.
	NegativeWindow NegativeWindow `json:"negative_window"`
	// LatencyBudgetsMS are the budgets L of recall within L
	// (docs/protocol.md#recall-within-a-latency-budget), ascending.
	LatencyBudgetsMS []int `json:"latency_budgets_ms"`
}

// DefaultLatencyBudgetsMS are the published latency budgets.
var DefaultLatencyBudgetsMS = []int{250, 500, 1000}

// MaxLatencyBudgets bounds how many latency budgets a result reports.
const MaxLatencyBudgets = 16

// DefaultParams returns the published protocol constants.
func DefaultParams() Params {
	return Params{
		TauPre:           floor.DefaultTauPre,
		TauMax:           floor.DefaultTauMax,
		FPBudgetDev:      0.10,
		FPBudgetTest:     0.15,
		Candidates:       512,
		Refractory:       2.0,
		NegativeWindow:   SpanWindow,
		LatencyBudgetsMS: slices.Clone(DefaultLatencyBudgetsMS),
	}
}

// UnmarshalJSON reads Params; a negative_window or latency_budgets_ms
// absent from the JSON (results, specs and workflow inputs written before
// they existed) takes its default, which is what those results were
// scored under.
func (p *Params) UnmarshalJSON(data []byte) error {
	type plain Params
	q := plain{NegativeWindow: SpanWindow}
	var present struct {
		Budgets json.RawMessage `json:"latency_budgets_ms"`
	}
	if err := json.Unmarshal(data, &q); err != nil {
		return err
	}
	if err := json.Unmarshal(data, &present); err != nil {
		return err
	}
	if present.Budgets == nil {
		q.LatencyBudgetsMS = slices.Clone(DefaultLatencyBudgetsMS)
	}
	*p = Params(q)
	return nil
}

// Validate rejects parameters the protocol cannot run with, and more
// candidate quantiles than lim allows: parameters from outside (a spec,
// flags, an activity's input) are checked by it once, where they come in.
func (p Params) Validate(lim limits.Limits) error {
	if err := p.validate(); err != nil {
		return err
	}
	return lim.CheckQuantiles("protocol parameter n_quantiles", p.Candidates)
}

// validate rejects parameters the protocol cannot run with.
func (p Params) validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"tau_pre_s", p.TauPre}, {"tau_max_s", p.TauMax}, {"fp_budget_dev", p.FPBudgetDev}, {"fp_budget_test", p.FPBudgetTest}, {"refractory_s", p.Refractory}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("protocol parameter %s must be finite and >= 0, got %v", f.name, f.v)
		}
	}
	if p.Candidates < 1 {
		return fmt.Errorf("protocol parameter n_quantiles must be >= 1, got %d", p.Candidates)
	}
	if _, err := ParseNegativeWindow(string(p.NegativeWindow)); err != nil {
		return fmt.Errorf("protocol parameter negative_window: %w", err)
	}
	if err := CheckLatencyBudgets(p.LatencyBudgetsMS); err != nil {
		return fmt.Errorf("protocol parameter latency_budgets_ms: %w", err)
	}
	return nil
}

// CheckLatencyBudgets accepts at most MaxLatencyBudgets budgets, each
// at least 0 ms, strictly ascending.
func CheckLatencyBudgets(ms []int) error {
	if len(ms) > MaxLatencyBudgets {
		return fmt.Errorf("%d budgets, at most %d allowed", len(ms), MaxLatencyBudgets)
	}
	for i, v := range ms {
		if v < 0 {
			return fmt.Errorf("budget %d ms must be >= 0", v)
		}
		if i > 0 && v <= ms[i-1] {
			return fmt.Errorf("budgets must be strictly ascending, got %d after %d", v, ms[i-1])
		}
	}
	return nil
}
