package swbd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The embedded samples reproduce the quantiles their provenance states
// (medians within the stated sampling error).
func TestSamplesMatchPublishedQuantiles(t *testing.T) {
	for _, c := range []struct {
		d        Distribution
		n        int
		p50, tol float64
		p10, p90 float64
		tailTol  float64
	}{
		{Offsets(), 14436, 0.108, 0.03, -1.077, 1.044, 0.1},
		{Pauses(), 14996, 0.512, 0.01, 0.256, 1.142, 0.03},
		{Overlaps(), 6013, 0.449, 0.03, 0.073, 2.228, 0.1},
	} {
		if len(c.d.Values) != c.n {
			t.Errorf("%s: %d values, want %d", c.d.Name, len(c.d.Values), c.n)
		}
		if got := c.d.At(0.5); math.Abs(got-c.p50) > c.tol {
			t.Errorf("%s: median %.3f, want %.3f ± %.2f", c.d.Name, got, c.p50, c.tol)
		}
		if got := c.d.At(0.1); math.Abs(got-c.p10) > c.tailTol {
			t.Errorf("%s: p10 %.3f, want %.3f", c.d.Name, got, c.p10)
		}
		if got := c.d.At(0.9); math.Abs(got-c.p90) > c.tailTol {
			t.Errorf("%s: p90 %.3f, want %.3f", c.d.Name, got, c.p90)
		}
	}
	if p := Pauses().Values[0]; p < 0.2 {
		t.Errorf("shortest pause %.3f s, below the 0.2 s merge threshold", p)
	}
}

// Overlaps are the negative offsets turned positive: as many as Offsets
// has below zero, the largest the most negative offset.
func TestOverlapsAreTheNegativeOffsets(t *testing.T) {
	o, off := Overlaps().Values, Offsets().Values
	if got, want := float64(len(o))/float64(len(off)), Offsets().Share(-1e-9); got != want {
		t.Errorf("%d overlaps of %d offsets (share %.4f), want the negative share %.4f", len(o), len(off), got, want)
	}
	if o[0] <= 0 || o[len(o)-1] != -off[0] {
		t.Errorf("overlaps run from %v to %v; offsets from %v", o[0], o[len(o)-1], off[0])
	}
}

func TestShareIsTheDistributionFunction(t *testing.T) {
	d := Distribution{Values: []float64{1, 2, 2, 4}}
	for _, c := range []struct{ x, want float64 }{{0.5, 0}, {1, 0.25}, {2, 0.75}, {3, 0.75}, {4, 1}, {9, 1}} {
		if got := d.Share(c.x); got != c.want {
			t.Errorf("Share(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Distribution{}.Share(1)) {
		t.Error("an empty sample should give NaN")
	}
	// Share undoes At (to the ties of a sample rounded to the millisecond).
	if got := Pauses().Share(Pauses().At(0.3)); math.Abs(got-0.3) > 0.01 {
		t.Errorf("Share(At(0.3)) = %v", got)
	}
}

func TestKS(t *testing.T) {
	if d := KS([]float64{1, 2, 3}, []float64{1, 2, 3}); d != 0 {
		t.Errorf("identical samples: %v", d)
	}
	if d := KS([]float64{1, 2}, []float64{3, 4}); d != 1 {
		t.Errorf("disjoint samples: %v", d)
	}
	// Hand-computed: F_a steps at 1, 2, 3, 4 by 1/4; F_b at 2.5 by 1; the
	// largest gap is at 2 (1/2 vs 0) and just after 2.5 (1/2 vs 1).
	if d := KS([]float64{1, 2, 3, 4}, []float64{2.5}); d != 0.5 {
		t.Errorf("KS = %v, want 0.5", d)
	}
	if !math.IsNaN(KS(nil, []float64{1})) {
		t.Error("empty sample should give NaN")
	}
	// Draws through the quantile function come from the distribution.
	rng := rand.New(rand.NewPCG(1, 2))
	draws := make([]float64, 3000)
	for i := range draws {
		draws[i] = Pauses().At(rng.Float64())
	}
	if d := KS(draws, Pauses().Values); d > 0.04 {
		t.Errorf("3000 draws through At: KS %.3f against the sample", d)
	}
	shifted := make([]float64, len(draws))
	for i, x := range draws {
		shifted[i] = x + 0.2
	}
	if d := KS(shifted, Pauses().Values); d < 0.2 {
		t.Errorf("draws shifted by 0.2 s: KS %.3f, should be far", d)
	}
}
