// Package reference computes what package features computes, written out
// from the definitions the slow way (a direct O(n²) DFT, a dense filter
// bank, sums in float64) and sharing no code with it, for the tests of
// features and of the detectors that use it to compare against.
package reference

import "math"

// LogMel is Whisper's log-mel features of chunk written out from their
// definition: the chunk mirrored 200
// samples at each end, each 400-sample frame every 160 samples times a
// Hann window of 401 points less its last, a direct O(n²) DFT, the power
// through a dense Slaney filter bank built from the formulas, log10 of
// at least 1e-10, the last frame dropped, the maximum less 8 as a floor,
// (x + 4) / 4. It returns [bins][frames].
func LogMel(chunk []float32, bins int) [][]float64 {
	n := len(chunk)
	mirror := func(i int) float64 {
		switch {
		case i < 0:
			i = -i
		case i >= n:
			i = 2*(n-1) - i
		}
		return float64(chunk[i])
	}
	var window [400]float64
	for j := range window {
		window[j] = 0.5 * (1 - math.Cos(2*math.Pi*float64(j)/float64(401-1)))
	}
	var cosTab, sinTab [400]float64
	for j := range cosTab {
		cosTab[j], sinTab[j] = math.Cos(2*math.Pi*float64(j)/400), math.Sin(2*math.Pi*float64(j)/400)
	}
	bank := filters(bins)
	frames := n/160 + 1 - 1
	out := make([][]float64, bins)
	for i := range out {
		out[i] = make([]float64, frames)
	}
	top := math.Inf(-1)
	var x [400]float64
	for t := range frames {
		for j := range x {
			x[j] = mirror(t*160+j-200) * window[j]
		}
		var power [201]float64
		for k := range power {
			var re, im float64
			for j, v := range x {
				re += v * cosTab[k*j%400]
				im -= v * sinTab[k*j%400]
			}
			power[k] = re*re + im*im
		}
		for i, f := range bank {
			var mel float64
			for k, w := range f {
				mel += w * power[k]
			}
			out[i][t] = math.Log10(math.Max(mel, 1e-10))
			top = math.Max(top, out[i][t])
		}
	}
	for i := range out {
		for t := range out[i] {
			out[i][t] = (math.Max(out[i][t], top-8) + 4) / 4
		}
	}
	return out
}

// filters is the Slaney mel filter bank of a 400-point FFT at
// 16 kHz from 0 to 8 kHz: bins+2 edges evenly spaced in Slaney mels
// (200/3 Hz a mel below 1 kHz, a factor 6.4 every 27 mels above), a
// triangle rising from edge i to edge i+1 and falling to edge i+2,
// scaled to unit area in hertz.
func filters(bins int) [][]float64 {
	toMel := func(hz float64) float64 {
		if hz < 1000 {
			return hz / (200.0 / 3)
		}
		return 15 + 27*math.Log(hz/1000)/math.Log(6.4)
	}
	toHz := func(mel float64) float64 {
		if mel < 15 {
			return mel * 200 / 3
		}
		return 1000 * math.Pow(6.4, (mel-15)/27)
	}
	edges := make([]float64, bins+2)
	for i := range edges {
		edges[i] = toHz(toMel(8000) * float64(i) / float64(bins+1))
	}
	bank := make([][]float64, bins)
	for i := range bank {
		bank[i] = make([]float64, 201)
		for k := range bank[i] {
			hz := 40 * float64(k)
			var w float64
			switch {
			case hz > edges[i] && hz <= edges[i+1]:
				w = (hz - edges[i]) / (edges[i+1] - edges[i])
			case hz > edges[i+1] && hz < edges[i+2]:
				w = (edges[i+2] - hz) / (edges[i+2] - edges[i+1])
			}
			bank[i][k] = w * 2 / (edges[i+2] - edges[i])
		}
	}
	return bank
}

// Normalized is chunk with its first n samples scaled to zero mean and
// unit population variance plus 1e-7, and the rest zero.
func Normalized(chunk []float32, n int) []float32 {
	var sum, squares float64
	for _, v := range chunk[:n] {
		sum += float64(v)
	}
	mean := sum / math.Max(1, float64(n))
	for _, v := range chunk[:n] {
		squares += (float64(v) - mean) * (float64(v) - mean)
	}
	sd := math.Sqrt(squares/math.Max(1, float64(n)) + 1e-7)
	out := make([]float32, len(chunk))
	for i, v := range chunk[:n] {
		out[i] = float32((float64(v) - mean) / sd)
	}
	return out
}
