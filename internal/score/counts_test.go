package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Expected values below were computed with numpy 1.24 (np.percentile,
// np.quantile, np.linspace); the last bits matter, so they are compared
// exactly.
func TestQuantileMatchesNumpyLinear(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sorted []float64
		q      float64
		want   float64
	}{
		{[]float64{100, 200, 300, 400}, 0.10, 130},
		{[]float64{100, 200, 300, 400}, 0.50, 250},
		{[]float64{100, 200, 300, 400}, 0.90, 370}, // gamma 0.7: lerp from above
		{[]float64{0.1, 0.123456789, 0.3, 0.7, 0.9999999}, 0.3, 0.15876543119999997},
		{[]float64{0.1, 0.123456789, 0.3, 0.7, 0.9999999}, 0.77, 0.723999992},
		{[]float64{0.1, 0.123456789, 0.3, 0.7, 0.9999999}, 0.5, 0.3},
		{[]float64{0.1, 0.123456789, 0.3, 0.7, 0.9999999}, 0.123, 0.111540740188},
		{[]float64{7}, 0.9, 7},
		{[]float64{1, 2}, 1, 2},
		{[]float64{1, 2}, 0, 1},
	}
	for _, c := range cases {
		if got := Quantile(c.sorted, c.q); got != c.want {
			t.Errorf("Quantile(%v, %v) = %.17g, numpy gives %.17g", c.sorted, c.q, got, c.want)
		}
	}
	lat := []float64{-250.0, 3.3, 20.0, 1234.5678, 2999.9999}
	if got := Percentile(lat, 90); got != 2293.82706 {
		t.Errorf("p90 = %.17g, numpy gives 2293.82706", got)
	}
	if got := Percentile(lat, 10); got != -148.68 {
		t.Errorf("p10 = %.17g, numpy gives -148.68", got)
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("quantile of nothing must be NaN")
	}
}

func TestLinspaceMatchesNumpy(t *testing.T) {
	t.Parallel()
	l := linspace01(512)
	want := map[int]float64{0: 0, 1: 0.0019569471624266144, 100: 0.19569471624266144, 255: 0.49902152641878667, 510: 0.9980430528375733, 511: 1}
	for i, w := range want {
		if l[i] != w {
			t.Errorf("level %d = %.17g, numpy gives %.17g", i, l[i], w)
		}
	}
	if got := linspace01(1); len(got) != 1 || got[0] != 0 {
		t.Errorf("linspace(0, 1, 1) = %v, want [0]", got)
	}
}

func TestRatesUndefinedWhenEmpty(t *testing.T) {
	t.Parallel()
	var c Counts
	if !math.IsNaN(c.Recall()) || !math.IsNaN(c.FPRate()) || !math.IsNaN(c.Latency().P50) {
		t.Fatalf("empty counts must give NaN rates and latencies, got %v %v %v", c.Recall(), c.FPRate(), c.Latency())
	}
	c = Counts{TP: 1, FN: 3, FP: 1, TN: 1, LatenciesMS: []float64{400, 100, 300, 200}}
	if c.Recall() != 0.25 || c.FPRate() != 0.5 {
		t.Errorf("recall %v fp_rate %v, want 0.25 and 0.5", c.Recall(), c.FPRate())
	}
	if l := c.Latency(); l != (Latency{130, 250, 370}) {
		t.Errorf("latency %v, want {130 250 370} (percentiles of the sorted latencies)", l)
	}
}

func TestAddSumsCountsAndPoolsLatencies(t *testing.T) {
	t.Parallel()
	// Aggregates are never averages of rates: 1/1 and 0/3 pool to 1/4.
	a := Counts{TP: 1, LatenciesMS: []float64{10}}
	a.Add(Counts{FN: 3, FP: 2, TN: 2, LatenciesMS: nil})
	if a.Recall() != 0.25 || a.FPRate() != 0.5 || len(a.LatenciesMS) != 1 {
		t.Errorf("pooled %+v: recall %v fp_rate %v", a, a.Recall(), a.FPRate())
	}
}

// TestLatencyEqualsTheSortedPercentiles checks the selection against
// percentiles of a sorted copy, bit for bit, on latencies with many ties,
// few values, sorted and reversed input.
func TestLatencyEqualsTheSortedPercentiles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(10, 90))
	for trial := range 3000 {
		n := 1 + rng.IntN(2000)
		if trial < 40 {
			n = trial + 1
		}
		v := make([]float64, n)
		for i := range v {
			switch trial % 4 {
			case 0:
				v[i] = float64(rng.IntN(5)) * 20 // heavy ties
			default:
				v[i] = (rng.Float64() - 0.2) * 2000
			}
		}
		switch trial % 7 {
		case 1:
			slices.Sort(v)
		case 2:
			slices.Sort(v)
			slices.Reverse(v)
		}
		in := slices.Clone(v)
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		want := Latency{Percentile(sorted, 10), Percentile(sorted, 50), Percentile(sorted, 90)}
		got := Counts{LatenciesMS: v}.Latency()
		if math.Float64bits(got.P10) != math.Float64bits(want.P10) || math.Float64bits(got.P50) != math.Float64bits(want.P50) ||
			math.Float64bits(got.P90) != math.Float64bits(want.P90) {
			t.Fatalf("trial %d (n %d): Latency = %+v, sorted percentiles %+v", trial, n, got, want)
		}
		if !slices.Equal(v, in) {
			t.Fatalf("trial %d: Latency reordered the counts' latencies", trial)
		}
	}
}
