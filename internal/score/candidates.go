package score

import (
	"math"
	"slices"
)

// Candidates returns the candidate thresholds of docs/protocol.md#candidate-thresholds: n quantiles
// (levels numpy.linspace(0, 1, n), linear method) of the pooled non-zero
// scores of every track, united with the grid 0.01..0.99, de-duplicated and
// ascending; the grid alone when every score is zero.
func Candidates(tracks [][]float64, n int) []float64 {
	n0 := 0
	for _, t := range tracks {
		n0 += len(t)
	}
	pooled := make([]float64, 0, n0)
	for _, t := range tracks {
		for _, v := range t {
			if v > 0 {
				pooled = append(pooled, v)
			}
		}
	}
	out := make([]float64, 0, 99+n)
	for i := 1; i <= 99; i++ {
		out = append(out, float64(i)/100) // Python's round(0.01*i, 2), exactly
	}
	if len(pooled) > 0 {
		sortPositive(pooled)
		for _, level := range linspace01(n) {
			out = append(out, Quantile(pooled, level))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// linspace01 returns numpy.linspace(0, 1, n): i*step with step = 1/(n-1)
// and the last level exactly 1.
func linspace01(n int) []float64 {
	if n <= 0 {
		return nil
	}
	levels := make([]float64, n)
	if n == 1 {
		return levels
	}
	step := 1.0 / float64(n-1)
	for i := range levels {
		levels[i] = float64(i) * step
	}
	levels[n-1] = 1
	return levels
}

// sortPositive sorts positive finite floats. Their IEEE 754 bit patterns
// order like the values, so a radix sort on the bits (four 16-bit passes)
// sorts the millions of pooled frames of a sweep several times faster than
// a comparison sort.
func sortPositive(v []float64) {
	if len(v) < 1<<12 {
		slices.Sort(v)
		return
	}
	keys := make([]uint64, len(v))
	for i, x := range v {
		keys[i] = math.Float64bits(x)
	}
	tmp := make([]uint64, len(v))
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&0xffff]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range keys {
			d := (k >> shift) & 0xffff
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		v[i] = math.Float64frombits(k)
	}
}
