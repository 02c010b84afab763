package score

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultBootstrap is the number of resamples of docs/protocol.md#bootstrap-intervals.
const DefaultBootstrap = 10000

// Resamples are B conversation-bootstrap resamples of n conversations: how
// many times each conversation is drawn in each resample. Drawn once from a
// seed, they are shared by every system and task scored on the same
// conversations, which is what makes paired comparisons paired.
type Resamples struct {
	B, N int
	mult []uint16 // B rows of N multiplicities
}

// NewResamples draws B resamples of n conversations with replacement from
// a PCG generator seeded with seed.
func NewResamples(n, b int, seed uint64) *Resamples {
	r := &Resamples{B: b, N: n, mult: make([]uint16, b*n)}
	rng := rand.New(rand.NewPCG(seed, 0x666c6f6f7262656e)) // "floorben"
	for i := 0; i < b; i++ {
		row := r.mult[i*n : (i+1)*n]
		for j := 0; j < n; j++ {
			row[rng.IntN(n)]++
		}
	}
	return r
}

// Rates returns recall and fp_rate of every resample of perConv (one Counts
// per conversation, in the order the resamples were drawn for), recomputed
// from the summed counts.
func (r *Resamples) Rates(perConv []Counts) (recall, fpRate []float64) {
	rates := r.rates(perConv)
	return rates[0], rates[1]
}

// rates returns, for every resample of perConv, recall, fp_rate, and
// fp_rate under the span and the anchored window, in one pass.
func (r *Resamples) rates(perConv []Counts) [4][]float64 {
	var out [4][]float64
	for k := range out {
		out[k] = make([]float64, r.B)
	}
	for i := 0; i < r.B; i++ {
		var tp, fn, fp, tn int
		var span, anchored NegativeCounts
		for j, m := range r.mult[i*r.N : (i+1)*r.N] {
			if m == 0 {
				continue
			}
			c := &perConv[j]
			w := int(m)
			tp += w * c.TP
			fn += w * c.FN
			fp += w * c.FP
			tn += w * c.TN
			span.FP += w * c.Windows.Span.FP
			span.TN += w * c.Windows.Span.TN
			anchored.FP += w * c.Windows.Anchored.FP
			anchored.TN += w * c.Windows.Anchored.TN
		}
		out[0][i], out[1][i] = ratio(tp, tp+fn), ratio(fp, fp+tn)
		out[2][i], out[3][i] = span.FPRate(), anchored.FPRate()
	}
	return out
}

// Interval is a confidence interval; NaN bounds when undefined.
type Interval struct{ Lo, Hi float64 }

// CI95 is the 95% percentile interval (2.5th and 97.5th percentiles,
// numpy-linear) of the defined values; resamples where a rate is undefined
// (no positives or no negatives drawn) are left out.
func CI95(values []float64) Interval {
	finite := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			finite = append(finite, v)
		}
	}
	if len(finite) == 0 {
		return Interval{math.NaN(), math.NaN()}
	}
	slices.Sort(finite)
	return Interval{Percentile(finite, 2.5), Percentile(finite, 97.5)}
}

// RateCIs are the bootstrap intervals of one task's recall and fp_rate,
// and of its fp_rate under each negative window.
type RateCIs struct {
	Recall  Interval
	FPRate  Interval
	Windows WindowIntervals
}

// WindowIntervals are fp_rate intervals under each negative window.
type WindowIntervals struct{ Span, Anchored Interval }

// Under returns the interval under w.
func (w WindowIntervals) Under(nw NegativeWindow) Interval {
	if nw == AnchoredWindow {
		return w.Anchored
	}
	return w.Span
}

// CIs bootstraps perConv's recall and fp_rate, and its fp_rate under
// each negative window.
func (r *Resamples) CIs(perConv []Counts) RateCIs {
	return cisOf(r.rates(perConv))
}

func cisOf(rates [4][]float64) RateCIs {
	return RateCIs{CI95(rates[0]), CI95(rates[1]), WindowIntervals{CI95(rates[2]), CI95(rates[3])}}
}

// Difference is a paired comparison of one rate between systems A and B.
type Difference struct {
	Delta float64  // A minus B on the full data
	CI    Interval // of the bootstrap distribution of A minus B
	P     float64  // two-sided bootstrap p-value for "no difference"
}

// Paired compares systems a and b on the same conversations (docs/protocol.md#paired-comparisons):
// the bootstrap distribution of a-b under the same resamples for both, its
// 95% interval and a two-sided p-value, 2*min(P(d<=0), P(d>=0)) capped at 1.
func (r *Resamples) Paired(a, b []Counts) (recall, fpRate Difference) {
	return Compare(r.Drawn(a), r.Drawn(b))
}

// PairedWithin compares the recall within a latency budget of systems a
// and b (docs/protocol.md#recall-within-a-latency-budget) on the same
// resamples.
func (r *Resamples) PairedWithin(a, b []Counts, budgetMS int) Difference {
	recall, _ := Compare(r.DrawnWithin(a, budgetMS), r.DrawnWithin(b, budgetMS))
	return recall
}

// Drawn is one system's recall and fp_rate on every resample and on the
// full data: what its paired comparisons read. A leaderboard draws each
// system's once and compares every two with Compare, instead of
// recomputing both sides' rates for each of the n(n-1)/2 pairs.
type Drawn struct {
	Recall, FPRate []float64 // by resample
	Sum            Counts
}

// Drawn is perConv's rates on every resample.
func (r *Resamples) Drawn(perConv []Counts) Drawn {
	return drawnOf(r.rates(perConv), Sum(perConv))
}

// DrawnWithin is Drawn of perConv's counts within a latency budget
// (Counts.WithinLatency).
func (r *Resamples) DrawnWithin(perConv []Counts, budgetMS int) Drawn {
	return r.Drawn(MapCounts(perConv, func(c Counts) Counts { return c.WithinLatency(budgetMS) }))
}

func drawnOf(rates [4][]float64, sum Counts) Drawn {
	return Drawn{Recall: rates[0], FPRate: rates[1], Sum: sum}
}

// Compare is Paired on rates drawn on the same resamples: a minus b.
func Compare(a, b Drawn) (recall, fpRate Difference) {
	recall = difference(a.Recall, b.Recall, a.Sum.Recall()-b.Sum.Recall())
	fpRate = difference(a.FPRate, b.FPRate, a.Sum.FPRate()-b.Sum.FPRate())
	return recall, fpRate
}

func difference(a, b []float64, delta float64) Difference {
	d := make([]float64, 0, len(a))
	for i := range a {
		if x := a[i] - b[i]; !math.IsNaN(x) {
			d = append(d, x)
		}
	}
	out := Difference{Delta: delta, CI: CI95(d), P: math.NaN()}
	if len(d) > 0 {
		var le, ge int
		for _, x := range d {
			if x <= 0 {
				le++
			}
			if x >= 0 {
				ge++
			}
		}
		out.P = min(1, 2*float64(min(le, ge))/float64(len(d)))
	}
	return out
}
