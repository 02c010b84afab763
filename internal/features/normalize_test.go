package features

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/features/reference"
)

// Normalize scales the real samples to zero mean and unit (population)
// variance with 1e-7 added to the variance, and zeroes the padding.
func TestNormalize(t *testing.T) {
	x := []float32{1, 2, 3, 4, 9, -9}
	Normalize(x, 4)
	scale := 1 / math.Sqrt(1.25+1e-7) // mean 2.5, variance 1.25
	want := []float64{-1.5 * scale, -0.5 * scale, 0.5 * scale, 1.5 * scale, 0, 0}
	for i := range want {
		if math.Abs(float64(x[i])-want[i]) > 1e-6 {
			t.Fatalf("normalised %v, want %v", x, want)
		}
	}
	// Silence stays silence: the epsilon keeps it from 0/0.
	flat := []float32{0.25, 0.25, 0.25, 7}
	Normalize(flat, 3)
	for i, v := range flat {
		if v != 0 {
			t.Fatalf("constant samples normalised to %v at %d, want zeros", flat, i)
		}
	}
	// Without real samples everything is padding.
	none := []float32{3, 4}
	Normalize(none, 0)
	if none[0] != 0 || none[1] != 0 {
		t.Fatalf("no real samples: %v, want zeros", none)
	}
}

// On speech padded behind, Normalize agrees with the definition.
func TestNormalizeMatchesItsDefinition(t *testing.T) {
	x := append(speechLike(5000, 9), whiteNoise(3000, 9)...)
	want := reference.Normalized(x, 5000)
	Normalize(x, 5000)
	for i := range x {
		if math.Abs(float64(x[i]-want[i])) > 1e-5 {
			t.Fatalf("sample %d: %v, want %v", i, x[i], want[i])
		}
	}
}
