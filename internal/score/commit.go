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
// its end, (i+1)/fps. It is a Committer run over the whole track.
func CommitTimes(track []float64, fps, theta, refractory float64) []float64 {
	c := NewCommitter(fps, theta, refractory)
	var times []float64
	for i, v := range track {
		if c.Push(v) {
			times = append(times, float64(i+1)/fps)
		}
	}
	return times
}

// Committer applies the commit rule to a score track as it is computed,
// one frame at a time: a live agent commits as it hears.
type Committer struct {
	theta float64
	r     int  // the refractory in frames
	i     int  // frames pushed
	last  int  // the frame of the last kept edge, -1 before the first
	above bool // the last frame was above theta
}

// NewCommitter starts the commit rule at threshold theta on a track of
// fps frames a second.
func NewCommitter(fps, theta, refractory float64) *Committer {
	return &Committer{theta: theta, r: RefractoryFrames(refractory, fps), last: -1}
}

// Push takes the next frame's score and reports whether the rule commits
// at that frame (at its end, (i+1)/fps).
func (c *Committer) Push(v float64) bool {
	now := v > c.theta
	fire := now && !c.above && (c.last < 0 || c.i-c.last >= c.r)
	if fire {
		c.last = c.i
	}
	c.above = now
	c.i++
	return fire
}
