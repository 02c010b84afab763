package jsonio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// pyFloatByExponent is PyFloat by its definition: the shortest digits, and
// their decimal exponent deciding fixed or scientific notation.
func pyFloatByExponent(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 0):
		return map[bool]string{true: "Infinity", false: "-Infinity"}[x > 0]
	}
	mant, expPart, _ := strings.Cut(strconv.FormatFloat(x, 'e', -1, 64), "e")
	exp, _ := strconv.Atoi(expPart)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// TestAppendPyFloatIsTheDefinition checks the one-formatting fast path
// against the definition, around the edges of fixed notation (1e-4 and
// 1e16, where the shortest digits decide) and over random magnitudes.
func TestAppendPyFloatIsTheDefinition(t *testing.T) {
	t.Parallel()
	var xs []float64
	for _, edge := range []float64{1e-4, 2e-4, 5e15, 1e16, 0, 1, 0.5} {
		x := edge
		for range 64 {
			xs = append(xs, x, -x)
			x = math.Nextafter(x, math.Inf(1))
		}
		x = edge
		for range 64 {
			x = math.Nextafter(x, math.Inf(-1))
			xs = append(xs, x, -x)
		}
	}
	rng := rand.New(rand.NewPCG(4, 16))
	for range 100000 {
		xs = append(xs, math.Float64frombits(rng.Uint64()), (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(40)-20)))
	}
	for _, x := range xs {
		if got, want := string(AppendPyFloat([]byte("x"), x)), "x"+pyFloatByExponent(x); got != want {
			t.Fatalf("AppendPyFloat(%b) = %s, want %s", x, got, want)
		}
	}
}

func FuzzAppendPyFloat(f *testing.F) {
	for _, x := range []float64{1e-4, 9.99995e-05, 1e16, 9999999999999998, 0.30000000000000004, math.Copysign(0, -1)} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if got, want := PyFloat(x), pyFloatByExponent(x); got != want {
			t.Fatalf("PyFloat(%b) = %s, want %s", x, got, want)
		}
	})
}
