package audio

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// NoiseKind names a background noise of the acoustics stage (docs/architecture.md#generator).
type NoiseKind string

// The noises the generator draws from.
const (
	White  NoiseKind = "white"
	Pink   NoiseKind = "pink"
	Babble NoiseKind = "babble"
	// Brown and Hum are the train preset's own noises, never drawn for an
	// evaluation preset, so a model trained on them is evaluated on noises
	// it never heard.
	Brown NoiseKind = "brown"
	Hum   NoiseKind = "hum"
)

// WhiteNoise returns n samples of Gaussian noise scaled to unit RMS, so
// that a drawn SNR is realised exactly.
func WhiteNoise(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64())
	}
	normalise(out)
	return out
}

// PinkNoise returns n samples of noise with a 1/f spectrum, unit RMS. It
// filters white noise with Kellet's economy three-pole approximation,
// accurate to about ±0.5 dB across the speech band.
func PinkNoise(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	var b0, b1, b2 float64
	for i := range out {
		w := rng.NormFloat64()
		b0 = 0.99765*b0 + w*0.0990460
		b1 = 0.96300*b1 + w*0.2965164
		b2 = 0.57000*b2 + w*1.0526913
		out[i] = float32(b0 + b1 + b2 + w*0.1848)
	}
	normalise(out)
	return out
}

// BrownNoise returns n samples of noise with a 1/f² spectrum (a leaky
// integral of white noise, leak 0.995 so it stays bounded), unit RMS.
func BrownNoise(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	var b float64
	for i := range out {
		b = 0.995*b + rng.NormFloat64()
		out[i] = float32(b)
	}
	normalise(out)
	return out
}

// humHarmonics is how many harmonics of the mains frequency HumNoise sums.
const humHarmonics = 8

// HumNoise returns n samples of mains hum, unit RMS: the first eight
// harmonics of 50 or 60 Hz (drawn) at random phases with amplitudes
// falling as 1/k, over white noise 20 dB below the hum.
func HumNoise(rng *rand.Rand, n int) []float32 {
	f0 := 50.0
	if rng.IntN(2) == 1 {
		f0 = 60
	}
	var phase [humHarmonics]float64
	for k := range phase {
		phase[k] = 2 * math.Pi * rng.Float64()
	}
	out := make([]float32, n)
	for i := range out {
		t := float64(i) / Rate
		var v float64
		for k := range humHarmonics {
			v += math.Sin(2*math.Pi*f0*float64(k+1)*t+phase[k]) / float64(k+1)
		}
		out[i] = float32(v + 0.1*rng.NormFloat64())
	}
	normalise(out)
	return out
}

// BabbleNoise returns n samples of multi-talker babble, unit RMS: `talkers`
// streams, each a random sequence of the given speech clips with short
// gaps, summed. With five or more talkers the words blur into a murmur
// that has speech's spectrum and rhythm without intelligible content.
func BabbleNoise(rng *rand.Rand, n, talkers int, clips [][]float32) ([]float32, error) {
	if len(clips) == 0 {
		return nil, fmt.Errorf("babble needs speech clips")
	}
	out := make([]float32, n)
	for range talkers {
		pos := -rng.IntN(Rate)
		for pos < n {
			c := clips[rng.IntN(len(clips))]
			if len(c) == 0 {
				pos += Rate / 10
				continue
			}
			AddAt(out, c, pos, 1)
			pos += len(c) + rng.IntN(Rate/4)
		}
	}
	normalise(out)
	return out, nil
}

// normalise scales x to unit RMS (silence stays silent).
func normalise(x []float32) {
	if r := RMS(x); r > 0 {
		Gain(x, 1/r)
	}
}
