package score

import (
	"fmt"
	"math"

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
const ProtocolVersion = 2

// Params are the protocol constants of docs/protocol.md#constants, with the published
// defaults from DefaultParams. Every result records the Params it used.
type Params struct {
	TauPre       float64 `json:"tau_pre_s"`      // matching tolerance before an anchor and a span
	TauMax       float64 `json:"tau_max_s"`      // latency deadline after an anchor
	FPBudgetDev  float64 `json:"fp_budget_dev"`  // dev fp_rate an operating point may have
	FPBudgetTest float64 `json:"fp_budget_test"` // test fp_rate an in-budget system may have
	Candidates   int     `json:"n_quantiles"`    // quantile levels of the candidate thresholds
	Refractory   float64 `json:"refractory_s"`   // minimum time between committed edges
}

// DefaultParams returns the published protocol constants.
func DefaultParams() Params {
	return Params{
		TauPre:       floor.DefaultTauPre,
		TauMax:       floor.DefaultTauMax,
		FPBudgetDev:  0.10,
		FPBudgetTest: 0.15,
		Candidates:   512,
		Refractory:   2.0,
	}
}

// Validate rejects parameters the protocol cannot run with.
func (p Params) Validate() error {
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
	return limits.Current().CheckQuantiles("protocol parameter n_quantiles", p.Candidates)
}
