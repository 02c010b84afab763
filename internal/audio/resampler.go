package audio

// Resampler is Resample for audio that arrives in pieces (a live stream):
// Push takes the next samples and returns every output sample whose
// interpolation window is complete; Flush ends the stream and returns the
// rest. It interpolates as Resample does (six-point Lagrange at the same
// positions, windows clipped at the ends), so the pieces it returns,
// joined, are Resample's output for the whole input up to rounding in the
// last bits (and up to Resample's final padding to round(n*to/from)). It
// holds back at most resampleQuality input samples: an output sample
// waits for three samples after it. Output sample j sits at input
// position j*from/to, computed exactly; where to/gcd(from, to) is small
// (16 and 24 kHz: 2 or 3 phases) the weights of each phase are computed
// once, so a stream costs a dozen operations per sample.
type Resampler struct {
	from, to int64             // the rates divided by their gcd
	phases   [][window]float64 // the weights of each phase, or nil
	held     []float32         // input samples from index off on
	off      int64             // input index of held[0]
	n        int64             // input samples pushed so far
	j        int64             // next output sample
	same     bool              // from == to: samples pass through
}

// window is how many input samples an output sample is interpolated from.
const window = 2 * resampleQuality

// maxPhases bounds the table of weights: 22,050 to 16,000 Hz has 320
// phases.
const maxPhases = 1024

// NewResampler starts a stream at rate from that comes out at rate to.
func NewResampler(from, to int) *Resampler {
	g := gcd(from, to)
	r := &Resampler{from: int64(from / g), to: int64(to / g), same: from == to}
	if r.to <= maxPhases && !r.same {
		r.phases = make([][window]float64, r.to)
		for p := range r.phases {
			r.phases[p] = weights(float64(p) / float64(r.to))
		}
	}
	return r
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// weights are the Lagrange weights of the six samples around an output at
// fraction frac past the third of them.
func weights(frac float64) [window]float64 {
	var w [window]float64
	t := frac + resampleQuality - 1
	for i := range w {
		l := 1.0
		for m := range window {
			if m != i {
				l *= (t - float64(m)) / float64(i-m)
			}
		}
		w[i] = l
	}
	return w
}

// Push adds x to the stream and returns the output samples it completes.
func (r *Resampler) Push(x []float32) []float32 {
	if r.same {
		return append([]float32(nil), x...)
	}
	r.held = append(r.held, x...)
	r.n += int64(len(x))
	return r.emit(false)
}

// Flush ends the stream: the last output samples are interpolated from the
// windows clipped at the end, as Resample clips them.
func (r *Resampler) Flush() []float32 {
	if r.same {
		return nil
	}
	return r.emit(true)
}

// emit interpolates output samples while their window is in hand (or, at
// the end, while their position is inside the input), then drops the input
// samples no later window needs.
func (r *Resampler) emit(final bool) []float32 {
	var out []float32
	for {
		base, phase := r.j*r.from/r.to, r.j*r.from%r.to
		start, end := base-(window-1)/2, base+window/2+1
		if base >= r.n || (!final && end > r.n) {
			break
		}
		var y float64
		if start >= 0 && end <= r.n && r.phases != nil {
			h, w := r.held[start-r.off:end-r.off], r.phases[phase]
			for i := range window {
				y += w[i] * float64(h[i])
			}
		} else {
			y = r.clipped(max(start, 0), min(end, r.n), float64(base)+float64(phase)/float64(r.to))
		}
		out = append(out, float32(y))
		r.j++
	}
	if keep := r.j*r.from/r.to - (window-1)/2; keep > r.off {
		drop := min(keep-r.off, int64(len(r.held)))
		r.held = append(r.held[:0], r.held[drop:]...)
		r.off += drop
	}
	return out
}

// clipped interpolates at x from the samples [start, end), a window cut by
// an end of the stream (or any window, where there is no table).
func (r *Resampler) clipped(start, end int64, x float64) float64 {
	y := 0.0
	for i := start; i < end; i++ {
		l := 1.0
		for m := start; m < end; m++ {
			if m != i {
				l *= (x - float64(m)) / float64(i-m)
			}
		}
		y += float64(r.held[i-r.off]) * l
	}
	return y
}
