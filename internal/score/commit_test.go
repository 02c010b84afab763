package score

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// docs/protocol.md#commit-rule: rising edges strictly above theta, a refractory counted from
// the last kept edge, commit time (i+1)/fps.
func TestCommitTimes(t *testing.T) {
	t.Parallel()
	track := []float64{0, .6, .6, 0, .7, 0, 0, .8}
	cases := []struct {
		name              string
		theta, refractory float64
		want              []float64
	}{
		{"every edge kept", 0.5, 2, []float64{2, 5, 8}},
		// The edge at frame 4 is suppressed (3 < 4 frames after frame 1) and
		// does not extend the refractory, so frame 7 (6 after frame 1) fires.
		{"suppressed edges do not extend", 0.5, 4, []float64{2, 8}},
		{"strictly above", 0.6, 2, []float64{5, 8}},
		{"nothing above", 0.8, 2, nil},
	}
	for _, c := range cases {
		if got := CommitTimes(track, 1, c.theta, c.refractory); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if got := CommitTimes([]float64{.9, .9, 0}, 50, .5, 2); !slices.Equal(got, []float64{0.02}) {
		t.Errorf("a track starting above theta fires at frame 0: %v", got)
	}
}

// Python's round is half to even: round(24.5) == 24, round(25.5) == 26.
func TestRefractoryFramesRoundHalfEven(t *testing.T) {
	t.Parallel()
	cases := []struct {
		refractory, fps float64
		want            int
	}{
		{2, 50, 100}, {2, 12.25, 24}, {2, 12.75, 26}, {2, 0.2, 1}, {0, 50, 1},
	}
	for _, c := range cases {
		if got := RefractoryFrames(c.refractory, c.fps); got != c.want {
			t.Errorf("RefractoryFrames(%v, %v) = %d, want %d", c.refractory, c.fps, got, c.want)
		}
	}
}

func TestCandidates(t *testing.T) {
	t.Parallel()
	grid := Candidates([][]float64{{0, 0}, {0}}, 512)
	if len(grid) != 99 || grid[0] != 0.01 || grid[98] != 0.99 || grid[49] != 0.5 {
		t.Fatalf("all-zero scores must give the grid 0.01..0.99 alone, got %d values %v..%v", len(grid), grid[0], grid[len(grid)-1])
	}
	// Quantiles of {0.255, 0.5, 0.755} at levels 0, .5, 1 are the values
	// themselves; 0.5 is also on the grid and appears once.
	c := Candidates([][]float64{{0, 0.255, 0.5}, {0.755}}, 3)
	if len(c) != 101 || !slices.Contains(c, 0.255) || !slices.Contains(c, 0.755) || !slices.IsSorted(c) {
		t.Errorf("want the grid united with {0.255, 0.755}: %d values", len(c))
	}
	if len(slices.Compact(slices.Clone(c))) != len(c) {
		t.Error("candidates must be de-duplicated")
	}
}

// The in-place sort of pooled scores must order them as a comparison sort
// does, whatever their spread: values spanning many octaves, values packed
// into one (sharing their top bytes), many equal values, and lengths on both
// sides of the small-bucket cut-off, and so does sortBitsOnCores.
func TestSortBitsOrdersLikeSort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() float64{
		"spread":   func() float64 { return math.Exp(-20 * rng.Float64()) },
		"one band": func() float64 { return 0.5 + rng.Float64()/1e6 },
		"few":      func() float64 { return float64(1+rng.IntN(7)) / 8 },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 63, 64, 65, 1000, 100000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = math.Float64bits(gen())
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			onCores := slices.Clone(keys)
			sortBits(keys, 56)
			sortBitsOnCores(onCores, 56)
			if !slices.Equal(keys, want) || !slices.Equal(onCores, want) {
				t.Fatalf("%s, %d keys: not sorted like slices.Sort", name, n)
			}
		}
	}
}

// The batched quantiles must equal the quantiles of one sorted copy of the
// pool, on pools large enough to need several batches, with a bucket larger
// than a batch, and with zeros left out.
func TestCandidatesEqualSortedPoolQuantiles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	gens := map[string]func() float64{
		"uniform":     rng.Float64,
		"near one":    func() float64 { return 1 - math.Exp(-12*rng.Float64()) },
		"one value":   func() float64 { return 0.75 },
		"mostly zero": func() float64 { return max(0, rng.Float64()-0.9) },
	}
	for name, gen := range gens {
		tracks := make([][]float64, 7)
		for k := range tracks {
			tracks[k] = make([]float64, 120000+k)
			for i := range tracks[k] {
				tracks[k][i] = gen()
			}
		}
		var pooled []float64
		for _, tr := range tracks {
			for _, v := range tr {
				if v > 0 {
					pooled = append(pooled, v)
				}
			}
		}
		slices.Sort(pooled)
		levels := linspace01(512)
		got := pooledQuantiles(tracks, levels)
		for i, q := range levels {
			if want := Quantile(pooled, q); got[i] != want {
				t.Fatalf("%s: level %v: %v, want %v", name, q, got[i], want)
			}
		}
	}
}

func TestOperatingPoint(t *testing.T) {
	t.Parallel()
	row := func(tp, fn, fp, tn int) SweepRow { return SweepRow{Counts: Counts{TP: tp, FN: fn, FP: fp, TN: tn}} }
	rows := []SweepRow{
		row(9, 1, 5, 5),  // recall .9, fp .5: over budget
		row(6, 4, 1, 9),  // recall .6, fp .1: in budget (<=)
		row(6, 4, 0, 10), // same recall, later: the first wins
		row(2, 8, 0, 0),  // fp undefined: never chosen
	}
	if i, ok := OperatingPoint(rows, 0.1); !ok || i != 1 {
		t.Errorf("operating point %d %v, want row 1", i, ok)
	}
	if _, ok := OperatingPoint(rows[:1], 0.1); ok {
		t.Error("no row within budget must give no operating point")
	}
}
