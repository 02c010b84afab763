package corpus

import (
	"math"
	"testing"
)

func TestClippedSamplesAreCounted(t *testing.T) {
	t.Parallel()
	if n := clipped([]float32{0, 1, -1, 0.5, float32(math.Nextafter32(1, 0))}); n != 3 {
		t.Fatalf("clipped = %d, want 3", n)
	}
}
