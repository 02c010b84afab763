package corpus

import (
	"math"
	"slices"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// Speech energy on a noisy channel, for the consistency check and for
// overlap statistics. A channel carries one speaker and noise, so the
// stretches away from that speaker's own events measure the noise.
const (
	noiseMargin = 0.02 // seconds kept clear around own events when measuring noise
	// speechFactor: a window carries speech when its RMS exceeds the
	// median noise window by this factor (2 dB). The generator's speech
	// boundaries are at least 20 dB re the loudest frame, which even at
	// the lowest SNR (20 dB) lifts a 10 ms window well past it.
	speechFactor = 1.25
	// quietFactor: a window is speech-free when its RMS stays under the
	// loudest noise windows (99.9th percentile) times this factor (2.3 dB).
	// Each boundary's outside window is one more draw of its channel's
	// noise, and a full corpus checks about 12,000 of them: on the mptb
	// preset's channels pink and babble noise pass the 99.5th percentile
	// times 1.25 in about 1 of 8,000 20 ms windows, so a correct corpus
	// failed about once per check, while this bound is passed in about 1
	// of 340,000 and still catches about 94% of turn starts logged 20 ms
	// late (docs/corpora.md#checking-a-corpus).
	quietFactor     = 1.3
	quietPercentile = 0.999
)

// channelNoise is a channel's noise level on 10 ms windows (median) and
// on 20 ms windows (99.9th percentile).
type channelNoise struct {
	median10, high20 float64
}

// measureNoise reads the noise of channel x, given its speaker's events.
func measureNoise(x []float32, own []floor.Event) channelNoise {
	busy := make([]bool, len(x)/sampleOf(0.01)+1)
	for _, e := range own {
		for i := max(0, windowOf(e.Start-noiseMargin)); i <= min(len(busy)-1, windowOf(e.End+noiseMargin)); i++ {
			busy[i] = true
		}
	}
	w := sampleOf(0.01)
	var w10, w20 []float64
	for i := 0; (i+1)*w <= len(x); i++ {
		if busy[i] {
			continue
		}
		w10 = append(w10, audio.RMS(x[i*w:(i+1)*w]))
		if i+1 < len(busy) && !busy[i+1] && (i+2)*w <= len(x) {
			w20 = append(w20, audio.RMS(x[i*w:(i+2)*w]))
		}
	}
	return channelNoise{median10: percentile(w10, 0.5), high20: percentile(w20, quietPercentile)}
}

func percentile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	slices.Sort(x)
	return x[int(q*float64(len(x)-1))]
}

func sampleOf(t float64) int { return int(math.Round(t * audio.Rate)) }
func windowOf(t float64) int { return int(t / 0.01) }

// windowRMS is the RMS of x over [from, to) seconds, clamped to x.
func windowRMS(x []float32, from, to float64) float64 {
	a, b := max(0, sampleOf(from)), min(len(x), sampleOf(to))
	if b <= a {
		return 0
	}
	return audio.RMS(x[a:b])
}

// speechIn reports whether x carries speech in [from, to).
func (n channelNoise) speechIn(x []float32, from, to float64) bool {
	return windowRMS(x, from, to) > speechFactor*n.median10
}

// quietIn reports whether x is free of speech in [from, to).
func (n channelNoise) quietIn(x []float32, from, to float64) bool {
	return windowRMS(x, from, to) <= quietFactor*n.high20
}
