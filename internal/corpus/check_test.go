package corpus

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

func TestClippedSamplesAreCounted(t *testing.T) {
	t.Parallel()
	if n := clipped([]float32{0, 1, -1, 0.5, float32(math.Nextafter32(1, 0))}); n != 3 {
		t.Fatalf("clipped = %d, want 3", n)
	}
}

// noisyTurn is a channel of pink noise (RMS 0.002, as at 31 dB SNR) with
// one second of a 200 Hz tone (RMS 0.07) from sample `at`, exactly where a
// turn logged from `at` would have it: no tone energy outside.
func noisyTurn(seed uint64, n, at int) []float32 {
	x := audio.PinkNoise(rand.New(rand.NewPCG(seed, 0)), n)
	audio.Gain(x, 0.002)
	for i := range audio.Rate {
		x[at+i] += float32(0.1 * math.Sin(2*math.Pi*200*float64(i)/audio.Rate))
	}
	return x
}

// loudestNoiseWindow is the sample where the loudest 20 ms window of x
// within [from, to) begins, on 1 ms steps.
func loudestNoiseWindow(x []float32, from, to int) int {
	best, at := 0.0, from
	for a := from; a+sampleOf(0.02) <= to; a += sampleOf(0.001) {
		if r := audio.RMS(x[a : a+sampleOf(0.02)]); r > best {
			best, at = r, a
		}
	}
	return at
}

// exactTurn is noisyTurn with the tone placed so that the loudest 20 ms
// of noise in its first 40 s lies 10 to 30 ms before the turn, and the
// turn's event, exact to the sample.
func exactTurn(seed uint64) ([]float32, floor.Event) {
	n := 60 * audio.Rate
	probe := audio.PinkNoise(rand.New(rand.NewPCG(seed, 0)), n)
	at := loudestNoiseWindow(probe, 10*audio.Rate, 40*audio.Rate) + sampleOf(0.03)
	e := floor.Event{Kind: floor.Turn, Speaker: 1, Start: float64(at) / audio.Rate, End: float64(at+audio.Rate) / audio.Rate}
	return noisyTurn(seed, n, at), e
}

// A boundary that is exact must pass even when the noise beside it is the
// loudest of the channel: pink noise's 20 ms level swings, and a corpus
// checks thousands of boundaries.
func TestCheckPassesExactBoundariesBesideNoisePeaks(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 8; seed++ {
		x, e := exactTurn(seed)
		var n int
		if p := checkBoundaries(x, []floor.Event{e}, &n); len(p) > 0 || n != 2 {
			t.Errorf("seed %d: %d boundaries checked, problems %q", seed, n, p)
		}
	}
}

// Speech logged 20 ms late or early beside the same noise peaks fails.
func TestCheckCatchesTurnsLoggedOffBesideNoisePeaks(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 8; seed++ {
		x, e := exactTurn(seed)
		late, early := e, e
		late.Start += 0.02
		early.End -= 0.02
		var n int
		if p := checkBoundaries(x, []floor.Event{late}, &n); len(p) != 1 || !strings.Contains(p[0], "TURN start") || !strings.Contains(p[0], "speech energy 10 to 30 ms outside it") {
			t.Errorf("seed %d: a turn start logged 20 ms late: %q", seed, p)
		}
		if p := checkBoundaries(x, []floor.Event{early}, &n); len(p) != 1 || !strings.Contains(p[0], "TURN end") || !strings.Contains(p[0], "speech energy 10 to 30 ms outside it") {
			t.Errorf("seed %d: a turn end logged 20 ms early: %q", seed, p)
		}
	}
}
