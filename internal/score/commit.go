package score

import "math"

// RefractoryFrames is the commit rule's refractory in frames: Python's
// round (half to even) of refractory*fps, at least 1 (docs/protocol.md#commit-rule).
func RefractoryFrames(refractory, fps float64) int {
	return max(1, int(math.RoundToEven(refractory*fps)))
}

// CommitTimes applies the commit rule (docs/protocol.md#commit-rule) to one score track:
// fire at every rising edge where the score goes strictly above theta,
// keep an edge only when at least the refractory has passed since the last
// kept edge (suppressed edges do not extend it), and time-stamp frame i at
// its end, (i+1)/fps.
func CommitTimes(track []float64, fps, theta, refractory float64) []float64 {
	r := RefractoryFrames(refractory, fps)
	var times []float64
	last := -1
	above := false
	for i, v := range track {
		now := v > theta
		if now && !above && (last < 0 || i-last >= r) {
			times = append(times, float64(i+1)/fps)
			last = i
		}
		above = now
	}
	return times
}
