package figure

import (
	"math"
	"regexp"
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

// Negative spans are shaded red and excluded intervals grey, both
// translucent, in colours an SVG reader accepts: six hex digits and an
// opacity (a premultiplied colour with a channel above its alpha once
// came out as fill:#40018C195, which browsers drop and fill black).
func TestBandsAreTranslucentRedAndGrey(t *testing.T) {
	f := Figure{Name: "bands", Columns: 1, Panels: []Panel{{
		Title: "p", XRange: &[2]float64{0, 10}, YRange: &[2]float64{0, 1},
		Bands: []Band{{Kind: "negative", Start: 1, End: 2}, {Kind: "excluded", Start: 5, End: 6}},
	}}}
	out, err := Render(f, "svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := string(out)
	// #E15759 and #808080, less the rounding of gonum's premultiplying.
	for _, want := range []string{"fill:#E05658;fill-opacity:0.21961", "fill:#7F7F7F;fill-opacity:0.28235"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	if bad := regexp.MustCompile(`fill:#[0-9A-Fa-f]{7,}`).FindString(svg); bad != "" {
		t.Errorf("the SVG has the colour %s, which is no colour", bad)
	}
}
