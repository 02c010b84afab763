package report

import (
	"math"
	"testing"
)

// TurnBench writes round(x, 6) with json.dumps; the expected strings are
// what Python 3 prints for these inputs.
func TestPyNumIsPythonsRoundedFloat(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{11.0 / 21, "0.52381"},
		{2044.2018169999, "2044.201817"},
		{1234567.1234565, "1234567.123457"},
		{1e-7, "0.0"},
		{-1e-7, "-0.0"},
		{5e-7, "0.0"},     // just below the half in binary
		{1.5e-6, "2e-06"}, // just above it
		{0.1, "0.1"},
		{1e17, "1e+17"},
		{math.NaN(), "null"},
	} {
		got, err := PyNum(c.x).MarshalJSON()
		if err != nil || string(got) != c.want {
			t.Errorf("PyNum(%v) = %s, %v; want %s", c.x, got, err, c.want)
		}
	}
}
