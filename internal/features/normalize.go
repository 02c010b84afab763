package features

import "math"

// normalizeEpsilon keeps the variance of a silent waveform from
// dividing by zero, as Hugging Face's zero_mean_unit_var_norm does.
const normalizeEpsilon = 1e-7

// Normalize scales x's first n samples to zero mean and unit variance,
// (x − mean) / sqrt(var + 1e-7) with the population variance, and sets
// the samples after them, padding, to zero: Wav2Vec2FeatureExtractor's
// zero_mean_unit_var_norm with an attention mask of n ones. Sums are
// taken in float64.
func Normalize(x []float32, n int) {
	var sum float64
	for _, v := range x[:n] {
		sum += float64(v)
	}
	mean := sum / float64(max(n, 1))
	var squares float64
	for _, v := range x[:n] {
		d := float64(v) - mean
		squares += d * d
	}
	scale := 1 / math.Sqrt(squares/float64(max(n, 1))+normalizeEpsilon)
	for i, v := range x[:n] {
		x[i] = float32((float64(v) - mean) * scale)
	}
	clear(x[n:])
}
