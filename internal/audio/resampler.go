package audio

// Resampler is Resample for audio that arrives in pieces (a live stream):
// Push takes the next samples and returns every output sample whose
// interpolation window is complete; Flush ends the stream and returns the
// rest. The pieces it returns, joined, are the samples Resample returns for
// the whole input (up to its final padding to round(n*to/from)): the same
// positions, the same six-point Lagrange interpolation, the same windows
// clipped at the ends. It holds back at most resampleQuality input samples,
// so an output sample waits for three samples after it to arrive.
type Resampler struct {
	ratio float64   // from / to: the input position of output sample j is j*ratio
	held  []float32 // input samples from index off on
	off   int       // input index of held[0]
	n     int       // input samples pushed so far
	j     int       // next output sample
	same  bool      // from == to: samples pass through
}

// NewResampler starts a stream at rate from that comes out at rate to.
func NewResampler(from, to int) *Resampler {
	return &Resampler{ratio: float64(from) / float64(to), same: from == to}
}

// Push adds x to the stream and returns the output samples it completes.
func (r *Resampler) Push(x []float32) []float32 {
	if r.same {
		return append([]float32(nil), x...)
	}
	r.held = append(r.held, x...)
	r.n += len(x)
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
	var pts [2 * resampleQuality]point
	for {
		pos := float64(r.j) * r.ratio
		start := int(pos) - (2*resampleQuality-1)/2
		end := int(pos) + resampleQuality + 1
		if int(pos) >= r.n || (!final && end > r.n) {
			break
		}
		start, end = max(start, 0), min(end, r.n)
		p := pts[:end-start]
		for i := range p {
			x := start + i
			p[i] = point{x: float64(x), y: float64(r.held[x-r.off])}
		}
		out = append(out, float32(lagrange(p, pos)))
		r.j++
	}
	if keep := int(float64(r.j)*r.ratio) - (2*resampleQuality-1)/2; keep > r.off {
		drop := min(keep-r.off, len(r.held))
		r.held = append(r.held[:0], r.held[drop:]...)
		r.off += drop
	}
	return out
}

// point is one input sample at its position.
type point struct{ x, y float64 }

// lagrange is the value at x of the polynomial through pts, summed in the
// order beep's resampler sums it, so that both give the same bits.
func lagrange(pts []point, x float64) float64 {
	y := 0.0
	for j := range pts {
		l := 1.0
		for m := range pts {
			if j == m {
				continue
			}
			l *= (x - pts[m].x) / (pts[j].x - pts[m].x)
		}
		y += pts[j].y * l
	}
	return y
}
