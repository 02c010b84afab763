package score

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestResamplesAreSeededAndComplete(t *testing.T) {
	t.Parallel()
	a, b := NewResamples(50, 200, 42), NewResamples(50, 200, 42)
	c := NewResamples(50, 200, 43)
	same, differ := true, false
	for i := range a.mult {
		same = same && a.mult[i] == b.mult[i]
		differ = differ || a.mult[i] != c.mult[i]
	}
	if !same || !differ {
		t.Fatalf("same seed must give the same resamples (%v), another seed others (%v)", same, differ)
	}
	for i := 0; i < a.B; i++ {
		n := 0
		for _, m := range a.mult[i*a.N : (i+1)*a.N] {
			n += int(m)
		}
		if n != a.N {
			t.Fatalf("resample %d draws %d conversations, want %d", i, n, a.N)
		}
	}
}

func TestCIOfAConstantRateIsThatRate(t *testing.T) {
	t.Parallel()
	per := make([]Counts, 40)
	for i := range per {
		per[i] = Counts{TP: 3, FN: 1, FP: 1, TN: 4}
	}
	ci := NewResamples(len(per), 1000, 1).CIs(per)
	if ci.Recall != (Interval{0.75, 0.75}) || ci.FPRate != (Interval{0.2, 0.2}) {
		t.Fatalf("constant per-conversation rates must give a point interval, got %+v", ci)
	}
}

func TestCICoversThePointEstimateAndNarrowsWithData(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	make := func(n int) []Counts {
		per := make([]Counts, n)
		for i := range per {
			per[i] = Counts{TP: rng.IntN(10), FN: rng.IntN(10), FP: rng.IntN(5), TN: rng.IntN(20)}
		}
		return per
	}
	small, large := make(20), make(500)
	cs := NewResamples(len(small), 2000, 1).CIs(small)
	cl := NewResamples(len(large), 2000, 1).CIs(large)
	r := Sum(small).Recall()
	if !(cs.Recall.Lo <= r && r <= cs.Recall.Hi) {
		t.Errorf("recall %v outside its interval %+v", r, cs.Recall)
	}
	if cl.Recall.Hi-cl.Recall.Lo >= cs.Recall.Hi-cs.Recall.Lo {
		t.Errorf("500 conversations must give a narrower interval than 20: %+v vs %+v", cl.Recall, cs.Recall)
	}
}

func TestPairedComparison(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	a := make([]Counts, 100)
	b := make([]Counts, 100)
	for i := range a {
		tp := 2 + rng.IntN(5)
		a[i] = Counts{TP: tp + 2, FN: 4 - 2, FP: 1, TN: 9}
		b[i] = Counts{TP: tp, FN: 4, FP: 1, TN: 9}
	}
	r := NewResamples(100, 2000, 9)
	recall, fp := r.Paired(a, b)
	if !(recall.Delta > 0 && recall.CI.Lo > 0 && recall.P < 0.01) {
		t.Errorf("A beats B on every conversation: %+v", recall)
	}
	if fp.Delta != 0 || fp.CI != (Interval{0, 0}) || fp.P != 1 {
		t.Errorf("identical fp counts must give delta 0, CI [0,0], p 1: %+v", fp)
	}
	same, _ := r.Paired(a, a)
	if same.P != 1 || same.Delta != 0 {
		t.Errorf("a system against itself: %+v", same)
	}
}

func TestCIIgnoresUndefinedResamples(t *testing.T) {
	t.Parallel()
	if ci := CI95([]float64{math.NaN(), 0.5, math.NaN()}); ci != (Interval{0.5, 0.5}) {
		t.Errorf("got %+v", ci)
	}
	if ci := CI95([]float64{math.NaN()}); !math.IsNaN(ci.Lo) {
		t.Errorf("all undefined must give NaN bounds, got %+v", ci)
	}
}
