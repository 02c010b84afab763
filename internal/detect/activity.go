package detect

// activity is per-speaker voice activity at a detector's own hop: value j of
// each speaker becomes known once sample end(j) = firstEnd + j*hop has been
// heard.
type activity struct {
	firstEnd, hop int
	values        [][]float32
}

func newActivity(speakers, firstEnd, hop int) *activity {
	return &activity{firstEnd: firstEnd, hop: hop, values: make([][]float32, speakers)}
}

// steps is how many hops fit in n samples: the number of values a detector
// with this geometry can compute causally from n samples.
func steps(n, firstEnd, hop int) int {
	if n < firstEnd {
		return 0
	}
	return (n-firstEnd)/hop + 1
}

// onGrid places the activity on the output grid: frame i takes the latest
// value whose samples were all heard by the frame's end, 0 before the first
// one (package documentation, "From voice activity to floor scores").
func (a *activity) onGrid(frames int, fps float64) [][]float64 {
	out := make([][]float64, len(a.values))
	for k, v := range a.values {
		track := make([]float64, frames)
		for i := range track {
			j := steps(heardBy(i, fps), a.firstEnd, a.hop) - 1
			// floor(duration*fps) frames can end a rounding error past
			// the floor(duration*16000) samples the values were computed
			// from; the last frame then keeps the last value.
			if j >= len(v) {
				j = len(v) - 1
			}
			if j >= 0 {
				track[i] = float64(v[j])
			}
		}
		out[k] = track
	}
	return out
}
