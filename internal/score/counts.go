package score

import (
	"math"
	"math/bits"
	"slices"
)

// Counts are the outcome of scoring one task: matched positives (TP, with
// their latencies in ms), missed positives (FN), negative spans that fired
// (FP) and that did not (TN) under the negative window scored with, and
// the negative spans' counts under every negative window.
type Counts struct {
	TP, FN, FP, TN int
	LatenciesMS    []float64
	Windows        WindowCounts
}

// Add accumulates o into c: aggregates sum counts and pool latencies, never
// average rates (docs/protocol.md#metrics).
func (c *Counts) Add(o Counts) {
	c.TP += o.TP
	c.FN += o.FN
	c.FP += o.FP
	c.TN += o.TN
	c.LatenciesMS = append(c.LatenciesMS, o.LatenciesMS...)
	c.Windows.add(o.Windows)
}

// Silent reports whether c holds no prediction the protocol counted: no
// match and no false positive under either negative window. A system in
// budget whose test counts are silent ranks by recall 0 only because it
// never fires.
func (c Counts) Silent() bool {
	return c.TP == 0 && c.FP == 0 && c.Windows.Span.FP == 0 && c.Windows.Anchored.FP == 0
}

// UnderWindow returns c with FP and TN those of negative window w, so
// that every rate, interval and comparison of Counts reads that window.
func (c Counts) UnderWindow(w NegativeWindow) Counts {
	n := c.Windows.Under(w)
	c.FP, c.TN = n.FP, n.TN
	return c
}

// WithinLatency returns c counting as TP only the matches whose latency
// is at most budgetMS (docs/protocol.md#recall-within-a-latency-budget):
// a later match becomes an FN, and only the kept latencies remain.
func (c Counts) WithinLatency(budgetMS int) Counts {
	kept := make([]float64, 0, len(c.LatenciesMS))
	for _, l := range c.LatenciesMS {
		if l <= float64(budgetMS) {
			kept = append(kept, l)
		}
	}
	c.FN += c.TP - len(kept)
	c.TP, c.LatenciesMS = len(kept), kept
	return c
}

// RecallWithin is the recall of WithinLatency(budgetMS).
func (c Counts) RecallWithin(budgetMS int) float64 {
	n := 0
	for _, l := range c.LatenciesMS {
		if l <= float64(budgetMS) {
			n++
		}
	}
	return ratio(n, c.TP+c.FN)
}

// MapCounts applies f to every element of perConv: the per-conversation
// counts of a view (a window, a latency budget) to bootstrap or compare.
func MapCounts(perConv []Counts, f func(Counts) Counts) []Counts {
	out := make([]Counts, len(perConv))
	for i, c := range perConv {
		out[i] = f(c)
	}
	return out
}

// Recall is TP/(TP+FN), NaN when there are no positives.
func (c Counts) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// FPRate is FP/(FP+TN), NaN when there are no negatives.
func (c Counts) FPRate() float64 { return ratio(c.FP, c.FP+c.TN) }

func ratio(num, den int) float64 {
	if den == 0 {
		return math.NaN()
	}
	return float64(num) / float64(den)
}

// Latency holds latency percentiles in ms (NaN when there is no TP).
type Latency struct{ P10, P50, P90 float64 }

// Latency returns the 10th, 50th and 90th percentiles of the TP latencies.
func (c Counts) Latency() Latency {
	if len(c.LatenciesMS) == 0 {
		return Latency{math.NaN(), math.NaN(), math.NaN()}
	}
	q := quantiles(c.LatenciesMS, 0.10, 0.50, 0.90)
	return Latency{q[0], q[1], q[2]}
}

// quantiles returns Quantile(sorted v, q) for each of qs (ascending)
// without sorting v: each quantile reads at most two order statistics,
// which a copy of v is partially ordered to hold where a sort would put
// them (selectNth), a few linear passes instead of a sort. v holds no NaN
// and no -0 (latencies are differences, and x - x is +0), so the values
// are those of the sort, bit for bit.
func quantiles(v []float64, qs ...float64) []float64 {
	s := slices.Clone(v)
	// Indices are asked for in ascending order (qs ascend): the last one
	// placed is in its sorted place, nothing before done is larger than
	// anything from done on, and no later index is below it.
	n, done := len(s), 0
	out := make([]float64, len(qs))
	for j, q := range qs {
		out[j] = quantileAt(n, func(i int) float64 {
			for done <= i {
				selectNth(s[done:], i-done)
				done = i + 1
			}
			return s[i]
		}, q)
	}
	return out
}

// selectNth reorders s so that s[k] holds what a sort would put there,
// with nothing larger before it and nothing smaller after it: quickselect
// with a median-of-three pivot and a three-way partition (runs of equal
// values), sorting what is left when it is small or when the pivots are
// unlucky too often.
func selectNth(s []float64, k int) {
	lo, hi := 0, len(s)
	for budget := 2 * bits.Len(uint(len(s))); hi-lo > 16 && budget > 0; budget-- {
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi-1]
		pivot := max(min(a, b), min(max(a, b), c))
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch x := s[i]; {
			case x < pivot:
				s[lt], s[i] = x, s[lt]
				lt++
				i++
			case x > pivot:
				gt--
				s[i], s[gt] = s[gt], x
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return
		}
	}
	slices.Sort(s[lo:hi])
}

// Percentile returns the p-th percentile (0..100) of sorted values as numpy's
// default "linear" method computes it, to the last bit.
func Percentile(sorted []float64, p float64) float64 { return Quantile(sorted, p/100) }

// Quantile returns the q-quantile (0..1) of sorted values with numpy's
// "linear" method: virtual index (n-1)*q, and numpy's two-sided lerp (from
// the lower neighbour below gamma 0.5, from the upper one at or above it).
// The explicit float64 conversions keep the compiler from fusing a
// multiply-add, which would round differently from numpy.
func Quantile(sorted []float64, q float64) float64 {
	return quantileAt(len(sorted), func(i int) float64 { return sorted[i] }, q)
}

// quantileAt is Quantile over the n sorted values at(0) .. at(n-1).
func quantileAt(n int, at func(int) float64, q float64) float64 {
	if n == 0 {
		return math.NaN()
	}
	virtual := float64(n-1) * q
	if virtual >= float64(n-1) {
		return at(n - 1)
	}
	if virtual < 0 {
		return at(0)
	}
	below := math.Floor(virtual)
	i := int(below)
	gamma := virtual - below
	a, b := at(i), at(i+1)
	diff := b - a
	if gamma >= 0.5 {
		return b - float64(diff*(1-gamma))
	}
	return a + float64(diff*gamma)
}
