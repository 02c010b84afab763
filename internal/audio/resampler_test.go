package audio

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A stream resampled in pieces of any size gives what Resample gives for
// the whole signal, to the last bits of a float32: a live protocol and an
// offline file agree.
func TestResamplerMatchesResample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rates := range [][2]int{{16000, 24000}, {24000, 16000}, {22050, 16000}, {16000, 16000}, {8000, 16000}} {
		for _, n := range []int{0, 1, 5, 319, 320, 4801, 16000} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * 0.2)
			}
			want := Resample(x, rates[0], rates[1])
			r := NewResampler(rates[0], rates[1])
			var got []float32
			for rest := x; len(rest) > 0; {
				k := min(len(rest), 1+rng.IntN(700))
				got = append(got, r.Push(rest[:k])...)
				rest = rest[k:]
			}
			got = append(got, r.Flush()...)
			// Resample pads or cuts to round(n*to/from); the stream ends
			// where the input does.
			if len(got) > len(want) {
				got = got[:len(want)]
			}
			if len(want)-len(got) > 1 {
				t.Errorf("%d -> %d Hz, %d samples: the stream gave %d samples, Resample %d", rates[0], rates[1], n, len(got), len(want))
			}
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-6 {
					t.Fatalf("%d -> %d Hz, %d samples: sample %d is %v, Resample's %v", rates[0], rates[1], n, i, got[i], want[i])
				}
			}
		}
	}
}

// A stream holds back only the few samples its interpolation window needs:
// 20 ms frames pushed at 16 kHz come out at 24 kHz with under 1 ms held.
func TestResamplerHoldsBackOnlyItsWindow(t *testing.T) {
	r := NewResampler(16000, 24000)
	frame := make([]float32, 320)
	out := 0
	for k := 1; k <= 50; k++ {
		out += len(r.Push(frame))
		if lag := k*480 - out; lag < 0 || lag > 24 {
			t.Fatalf("after %d frames %d samples of %d came out", k, out, k*480)
		}
	}
	if out += len(r.Flush()); out != 50*480 {
		t.Errorf("after Flush %d samples, want %d", out, 50*480)
	}
}
