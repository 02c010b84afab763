package figure

import (
	"math"
	"strings"
	"testing"
)

// Undefined values (an fp_rate with no negatives, a latency with no hit)
// are left out of a figure instead of failing it: a bundle holding the
// figure must never fail because one number is undefined. The defined
// points are still drawn.
func TestRenderLeavesOutUndefinedValues(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	f := Figure{Name: "undefined", Title: "undefined values", Columns: 1, Panels: []Panel{{
		Title: "p", XLabel: "x", YLabel: "y",
		Lines:  []Line{{Label: "line", X: []float64{0, 1, 2}, Y: []float64{0.1, nan, 0.3}}, {Label: "empty", X: []float64{0}, Y: []float64{nan}}},
		Points: []Points{{Label: "points", Shape: "triangle", X: []float64{0, nan}, Y: []float64{0.2, 0.5}}},
		Boxes:  []Box{{Label: "box", X: 1, Values: []float64{0.1, inf, 0.2, nan, 0.3}}},
	}}}
	for _, format := range []string{"svg", "png"} {
		out, err := Render(f, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if format == "svg" && (!strings.Contains(string(out), ">line<") || !strings.Contains(string(out), ">points<")) {
			t.Errorf("the defined points must still be drawn with their legend")
		}
	}
}
