package audio

import "github.com/gopxl/beep/v2"

// resampleQuality is beep's interpolation order: 3 (six-point Lagrange)
// keeps espeak-ng's 22,050 Hz speech clean at 16 kHz at about 300x real
// time per core, which the full preset's time budget needs.
const resampleQuality = 3

// Resample converts x from rate `from` to rate `to` with beep's pure-Go
// resampler (no cgo, so the binary stays static). The output has
// round(len(x)*to/from) samples; equal rates return x unchanged.
func Resample(x []float32, from, to int) []float32 {
	if from == to || len(x) == 0 {
		return x
	}
	want := ResampledLength(int64(len(x)), from, to)
	r := beep.Resample(resampleQuality, beep.SampleRate(from), beep.SampleRate(to), &monoStreamer{x: x})
	out := make([]float32, 0, want+64)
	buf := make([][2]float64, 4096)
	for len(out) < want {
		n, ok := r.Stream(buf)
		for _, s := range buf[:n] {
			out = append(out, float32(s[0]))
		}
		if !ok || n == 0 {
			break
		}
	}
	for len(out) < want {
		out = append(out, 0)
	}
	return out[:want]
}

// ResampledLength is how many samples Resample makes of n at rate from:
// round(n*to/from).
func ResampledLength(n int64, from, to int) int {
	if from == to {
		return int(n)
	}
	return int((n*int64(to) + int64(from)/2) / int64(from))
}

// monoStreamer feeds one channel to beep, which works on stereo frames.
type monoStreamer struct {
	x []float32
	i int
}

func (m *monoStreamer) Stream(buf [][2]float64) (int, bool) {
	if m.i >= len(m.x) {
		return 0, false
	}
	n := copy2(buf, m.x[m.i:])
	m.i += n
	return n, true
}

func (m *monoStreamer) Err() error { return nil }

func copy2(dst [][2]float64, src []float32) int {
	n := min(len(dst), len(src))
	for i := range n {
		v := float64(src[i])
		dst[i] = [2]float64{v, v}
	}
	return n
}
