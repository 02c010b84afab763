package audio

import "math"

// RMS is the root mean square of x (0 for no samples).
func RMS(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(x)))
}

// Peak is the largest absolute sample value of x.
func Peak(x []float32) float64 {
	var p float64
	for _, v := range x {
		p = max(p, math.Abs(float64(v)))
	}
	return p
}

// DB converts an amplitude ratio to decibels (-inf for 0).
func DB(ratio float64) float64 { return 20 * math.Log10(ratio) }

// FromDB converts decibels to an amplitude ratio.
func FromDB(db float64) float64 { return math.Pow(10, db/20) }

// FrameRMS is the RMS of consecutive frames of `frame` samples; a last
// partial frame is dropped.
func FrameRMS(x []float32, frame int) []float64 {
	out := make([]float64, len(x)/frame)
	for i := range out {
		out[i] = RMS(x[i*frame : (i+1)*frame])
	}
	return out
}

// Gain multiplies x by g in place.
func Gain(x []float32, g float64) {
	for i := range x {
		x[i] = float32(float64(x[i]) * g)
	}
}

// AddAt adds src, times gain, into dst starting at sample offset; samples
// falling outside dst are dropped.
func AddAt(dst, src []float32, offset int, gain float64) {
	for i, v := range src {
		j := offset + i
		if j < 0 {
			continue
		}
		if j >= len(dst) {
			return
		}
		dst[j] += float32(float64(v) * gain)
	}
}
