package agent

import (
	"math"
	"testing"
)

func pairs(a, b, c, d int) []Pair {
	var out []Pair
	for _, cell := range []struct {
		n               int
		offline, online bool
	}{{a, true, true}, {b, true, false}, {c, false, true}, {d, false, false}} {
		for range cell.n {
			out = append(out, Pair{cell.offline, cell.online})
		}
	}
	return out
}

// Hand-worked: OR = 20·12/(10·8) = 3, SE = sqrt(1/20 + 1/10 + 1/8 + 1/12)
// = 0.598609, CI = 3·exp(∓1.959964·0.598609) = [0.92807, 9.69747].
func TestAssociateWoolf(t *testing.T) {
	s := Associate(pairs(20, 10, 8, 12))
	if s.A != 20 || s.B != 10 || s.C != 8 || s.D != 12 || s.Corrected {
		t.Fatalf("table %+v", s)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"online given offline", float64(s.OnlineGivenOffline), 20.0 / 30},
		{"online given not offline", float64(s.OnlineGivenNotOffline), 8.0 / 20},
		{"odds ratio", float64(s.OddsRatio), 3},
		{"lower bound", float64(s.CI95[0]), 0.92807},
		{"upper bound", float64(s.CI95[1]), 9.69747},
	} {
		if math.Abs(c.got-c.want) > 5e-5 {
			t.Errorf("%s = %.6f, want %.5f", c.name, c.got, c.want)
		}
	}
}

// A zero cell adds 0.5 to every cell: OR = 5.5·3.5/(0.5·2.5) = 15.4.
func TestAssociateHaldane(t *testing.T) {
	s := Associate(pairs(5, 0, 2, 3))
	if !s.Corrected || math.Abs(float64(s.OddsRatio)-15.4) > 1e-9 || !(float64(s.CI95[0]) < 15.4 && float64(s.CI95[1]) > 15.4) {
		t.Fatalf("%+v", s)
	}
	if s := Associate(pairs(5, 3, 0, 0)); !math.IsNaN(float64(s.OddsRatio)) || !math.IsNaN(float64(s.CI95[0])) {
		t.Fatalf("no offline-wrong pairs: %+v", s)
	}
	if s := Associate(nil); !math.IsNaN(float64(s.OnlineGivenOffline)) || !math.IsNaN(float64(s.OddsRatio)) {
		t.Fatalf("no pairs: %+v", s)
	}
}

// Online correctness independent of offline correctness gives OR 1, and
// swapping which side is offline-correct inverts it.
func TestAssociateSymmetry(t *testing.T) {
	if s := Associate(pairs(6, 4, 12, 8)); math.Abs(float64(s.OddsRatio)-1) > 1e-12 {
		t.Errorf("independent: OR %v", s.OddsRatio)
	}
	a, b := Associate(pairs(20, 10, 8, 12)), Associate(pairs(8, 12, 20, 10))
	if math.Abs(float64(a.OddsRatio)*float64(b.OddsRatio)-1) > 1e-12 || math.Abs(float64(a.CI95[0])*float64(b.CI95[1])-1) > 1e-12 {
		t.Errorf("swapped: %v and %v", a.OddsRatio, b.OddsRatio)
	}
}
