package score

import (
	"math"
	"slices"
	"sync/atomic"
)

// Candidates returns the candidate thresholds of docs/protocol.md#candidate-thresholds: n quantiles
// (levels numpy.linspace(0, 1, n), linear method) of the pooled non-zero
// scores of every track, united with the grid 0.01..0.99, de-duplicated and
// ascending; the grid alone when every score is zero.
func Candidates(tracks [][]float64, n int) []float64 {
	out := make([]float64, 0, 99+n)
	for i := 1; i <= 99; i++ {
		out = append(out, float64(i)/100) // Python's round(0.01*i, 2), exactly
	}
	out = append(out, pooledQuantiles(tracks, linspace01(n))...)
	slices.Sort(out)
	return slices.Compact(out)
}

// bucketShift keeps a positive score's top 18 bits (sign, exponent and 6
// bits of mantissa) as its bucket: buckets order like the scores they hold,
// each 1/64 of an octave wide.
const bucketShift = 46

// pooledQuantiles returns Quantile of the pooled positive scores at each
// level (none when no score is positive) without a sorted copy of the pool,
// which for a sweep's millions of frames would double its memory: a first
// pass counts the scores per bucket, which names the buckets holding the
// order statistics the levels read; then, in batches of about an eighth of
// the pool, the scores of those buckets are gathered, each straight into
// its bucket's place, the buckets sorted, and the order statistics read
// from them. Every pass runs on every core.
func pooledQuantiles(tracks [][]float64, levels []float64) []float64 {
	parts := cuts(len(tracks)) // one cut of the tracks for every pass
	counts, start, total := bucketCounts(tracks, parts)
	if total == 0 {
		return nil
	}
	// The ranks the levels read, by asking Quantile's own rule for them.
	needed := map[int]float64{}
	for _, q := range levels {
		quantileAt(total, func(i int) float64 { needed[i] = 0; return 0 }, q)
	}
	var buckets []int
	for r := range needed {
		b, _ := slices.BinarySearch(start, r+1) // the first bucket ending after r
		buckets = append(buckets, b-1)
	}
	slices.Sort(buckets)
	buckets = slices.Compact(buckets)

	// Batches of consecutive buckets, each as many scores as fit in an
	// eighth of the pool (or one bucket), gathered in turn into one buffer
	// the size of the largest.
	limit := max(total/8, 1<<16)
	var batches [][]int
	largest, size, first := 0, 0, 0
	for k, b := range buckets {
		n := start[b+1] - start[b]
		if size > 0 && size+n > limit {
			batches = append(batches, buckets[first:k])
			first, size = k, 0
		}
		size += n
		largest = max(largest, size)
	}
	batches = append(batches, buckets[first:])
	slot := make([]int32, 1<<(64-bucketShift)) // a bucket's index in the batch + 1; 0 outside it
	buffer := make([]uint64, largest)
	for _, batch := range batches {
		begin := make([]int, len(batch)+1) // where each bucket of the batch begins in keys
		for k, b := range batch {
			slot[b] = int32(k + 1)
			begin[k+1] = begin[k] + start[b+1] - start[b]
		}
		keys := buffer[:begin[len(batch)]]
		gather(tracks, parts, counts, batch, slot, begin, keys)
		sortBuckets(keys, begin)
		for k, b := range batch {
			for r := range needed {
				if r >= start[b] && r < start[b+1] {
					needed[r] = math.Float64frombits(keys[begin[k]+r-start[b]])
				}
			}
			slot[b] = 0
		}
	}
	out := make([]float64, len(levels))
	for i, q := range levels {
		out[i] = quantileAt(total, func(r int) float64 { return needed[r] }, q)
	}
	return out
}

// bucketCounts counts the positive scores of every bucket, the tracks cut
// into parts ranges counted on their own cores: counts[i][b] is range i's
// count of bucket b, start[b] the number of scores in buckets below b.
func bucketCounts(tracks [][]float64, parts int) (counts [][]int, start []int, total int) {
	counts = make([][]int, parts)
	chunksOf(len(tracks), parts, func(i, lo, hi int) {
		count := make([]int, 1<<(64-bucketShift))
		for _, t := range tracks[lo:hi] {
			for _, v := range t {
				if v > 0 {
					count[math.Float64bits(v)>>bucketShift]++
				}
			}
		}
		counts[i] = count
	})
	start = make([]int, 1<<(64-bucketShift)+1)
	for b := range 1 << (64 - bucketShift) {
		n := 0
		for _, count := range counts {
			n += count[b]
		}
		start[b+1] = start[b] + n
	}
	return counts, start, start[len(start)-1]
}

// gather writes the bits of the positive scores of the batch's buckets
// into keys, each bucket's from begin[k]: the tracks cut as bucketCounts
// cut them, each range writing from where the ranges before it end (their
// counts say where), so every range writes on its own core straight into
// place.
func gather(tracks [][]float64, parts int, counts [][]int, batch []int, slot []int32, begin []int, keys []uint64) {
	next := make([][]int, parts)
	for i := range next {
		next[i] = make([]int, len(batch))
		for k, b := range batch {
			next[i][k] = begin[k]
			for _, count := range counts[:i] {
				next[i][k] += count[b]
			}
		}
	}
	chunksOf(len(tracks), parts, func(i, lo, hi int) {
		at := next[i]
		for _, t := range tracks[lo:hi] {
			for _, v := range t {
				if bits := math.Float64bits(v); v > 0 {
					if s := slot[bits>>bucketShift]; s > 0 {
						keys[at[s-1]] = bits
						at[s-1]++
					}
				}
			}
		}
	})
}

// sortBuckets sorts each bucket keys[begin[k]:begin[k+1]] (the bits below
// a bucket's: sortBits from bit 47), the buckets shared out over the
// cores; a bucket too large to share out so is sorted on every core
// itself.
func sortBuckets(keys []uint64, begin []int) {
	large := func(k int) bool { n := begin[k+1] - begin[k]; return n >= 1<<16 && n > len(keys)/4 }
	for k := range len(begin) - 1 {
		if large(k) {
			sortBitsOnCores(keys[begin[k]:begin[k+1]], 40)
		}
	}
	var next atomic.Int32
	chunks(len(begin)-1, func(int, int, int) {
		for k := int(next.Add(1)) - 1; k < len(begin)-1; k = int(next.Add(1)) - 1 {
			if !large(k) && begin[k+1]-begin[k] > 1 {
				sortBits(keys[begin[k]:begin[k+1]], 40)
			}
		}
	})
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

// sortBits sorts keys in place by their bits from shift+7 down: an
// American flag sort (most significant byte first, each byte's buckets
// permuted in place, then each bucket sorted on the next byte), which sorts
// the millions of pooled frames of a sweep several times faster than a
// comparison sort and needs no second buffer.
func sortBits(keys []uint64, shift uint) {
	if len(keys) < 64 {
		slices.Sort(keys)
		return
	}
	count := partitionByte(keys, shift)
	if shift == 0 {
		return
	}
	lo := 0
	for d := range count {
		if count[d] > 1 {
			sortBits(keys[lo:lo+count[d]], shift-8)
		}
		lo += count[d]
	}
}

// sortBitsOnCores is sortBits with the groups of the first byte that
// splits keys sorted on every core, each by one goroutine: the order is
// the same. (A sweep's scores share their first bytes: those are passed
// over.)
func sortBitsOnCores(keys []uint64, shift uint) {
	if len(keys) < 1<<16 {
		sortBits(keys, shift)
		return
	}
	count := partitionByte(keys, shift)
	if shift == 0 {
		return
	}
	if slices.Contains(count[:], len(keys)) {
		sortBitsOnCores(keys, shift-8)
		return
	}
	var start [257]int
	for d, c := range count {
		start[d+1] = start[d] + c
	}
	var next atomic.Int32
	chunks(len(count), func(int, int, int) {
		for d := int(next.Add(1)) - 1; d < len(count); d = int(next.Add(1)) - 1 {
			if count[d] > 1 {
				sortBits(keys[start[d]:start[d+1]], shift-8)
			}
		}
	})
}

// partitionByte permutes keys in place so that they are grouped by the
// byte at shift, in ascending order, and returns each group's size.
func partitionByte(keys []uint64, shift uint) [256]int {
	var count, next [256]int
	for _, k := range keys {
		count[(k>>shift)&0xff]++
	}
	end := [256]int{}
	sum := 0
	for d, c := range count {
		next[d] = sum
		sum += c
		end[d] = sum
	}
	for d := range next {
		for next[d] < end[d] {
			k := keys[next[d]]
			kd := int((k >> shift) & 0xff)
			if kd == d {
				next[d]++
				continue
			}
			// Swap k into its bucket's next free place and carry on with
			// what was there.
			keys[next[d]], keys[next[kd]] = keys[next[kd]], k
			next[kd]++
		}
	}
	return count
}
