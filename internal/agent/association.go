package agent

import (
	"math"

	"github.com/floorbench/floorbench/internal/report"
)

// Pair is one event an agent met both offline and online: whether the
// floorbench system its decisions come from was correct on the event
// offline (scored by the protocol at its frozen threshold) and whether the
// agent acted correctly on it in the trial.
type Pair struct {
	Offline bool
	Online  bool
}

// Association is the offline–online association of MPTB §H: the 2x2
// table of pairs, the online correctness rate given offline correct and
// given offline wrong, and the odds ratio of online correctness between
// the two with its 95% interval.
type Association struct {
	// A: offline and online correct; B: offline correct, online wrong;
	// C: offline wrong, online correct; D: both wrong.
	A int `json:"offline_correct_online_correct"`
	B int `json:"offline_correct_online_wrong"`
	C int `json:"offline_wrong_online_correct"`
	D int `json:"offline_wrong_online_wrong"`
	// OnlineGivenOffline and OnlineGivenNotOffline are A/(A+B) and C/(C+D).
	OnlineGivenOffline    report.Num    `json:"online_correct_given_offline_correct"`
	OnlineGivenNotOffline report.Num    `json:"online_correct_given_offline_wrong"`
	OddsRatio             report.Num    `json:"odds_ratio"`
	CI95                  [2]report.Num `json:"odds_ratio_ci95"`
	// Corrected is true when a cell was zero and 0.5 was added to every
	// cell (Haldane–Anscombe).
	Corrected bool `json:"haldane_corrected"`
}

// z975 is the standard normal's 97.5th percentile.
const z975 = 1.959963984540054

// Associate tabulates pairs and computes the odds ratio (A·D)/(B·C) with
// Woolf's 95% interval exp(ln OR ± 1.96·sqrt(1/A + 1/B + 1/C + 1/D)).
// When any cell is zero, 0.5 is added to all four first (the Haldane–
// Anscombe correction), so the ratio and its interval stay finite. With no
// pairs, or no pair on one side of the offline split, everything is
// undefined (NaN).
func Associate(pairs []Pair) Association {
	var s Association
	for _, p := range pairs {
		switch {
		case p.Offline && p.Online:
			s.A++
		case p.Offline:
			s.B++
		case p.Online:
			s.C++
		default:
			s.D++
		}
	}
	s.OnlineGivenOffline = report.Num(ratio(s.A, s.A+s.B))
	s.OnlineGivenNotOffline = report.Num(ratio(s.C, s.C+s.D))
	nan := report.Num(math.NaN())
	s.OddsRatio, s.CI95 = nan, [2]report.Num{nan, nan}
	if s.A+s.B == 0 || s.C+s.D == 0 {
		return s
	}
	a, b, c, d := float64(s.A), float64(s.B), float64(s.C), float64(s.D)
	if s.A == 0 || s.B == 0 || s.C == 0 || s.D == 0 {
		a, b, c, d = a+0.5, b+0.5, c+0.5, d+0.5
		s.Corrected = true
	}
	logOR := math.Log(a * d / (b * c))
	se := math.Sqrt(1/a + 1/b + 1/c + 1/d)
	s.OddsRatio = report.Num(math.Exp(logOR))
	s.CI95 = [2]report.Num{report.Num(math.Exp(logOR - z975*se)), report.Num(math.Exp(logOR + z975*se))}
	return s
}
