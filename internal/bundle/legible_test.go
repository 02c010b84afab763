package bundle_test

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/bundle/bundlefixture"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/figure"
	"github.com/floorbench/floorbench/internal/score"
)

// svgText is one horizontal text of an SVG figure: gonum writes x as its
// left edge.
var svgText = regexp.MustCompile(`<text x="([-0-9.]+)" y="([-0-9.]+)" transform="scale\(1, -1\)"\s+style="[^"]*font-size:([0-9.]+)px">([^<]*)</text>`)

var svgWidth = regexp.MustCompile(`<svg width="([0-9.]+)pt"`)

// browserSlack is how much wider than the layout's metrics a browser's
// fallback font may draw a text (the SVG embeds no font).
const browserSlack = 1.25

// Every figure a bundle draws keeps each title and label inside the
// canvas and clear of the labels beside it, even drawn a quarter wider
// than measured: the error anatomy's category labels, the latency
// figure's title.
func TestFiguresAreLegible(t *testing.T) {
	d := bundlefixture.FullMPTB()
	d.Systems = d.Systems[:3]
	c, tracks := bundlefixture.Make(d)
	meta := bundle.Meta{Name: "legible", Spec: json.RawMessage(`{}`), Protocol: score.DefaultParams(), Resamples: 20, Seed: 1}
	var evals []evaluate.Evaluation
	for _, sys := range d.Systems {
		e, err := evaluate.System(&evaluate.Input{System: sys.Name, SystemHash: sys.Name, Corpus: c, DevProbs: tracks[sys.Name].Dev, TestProbs: tracks[sys.Name].Test,
			Params: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed})
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, *e)
	}
	_, res, err := bundle.Build(meta, bundle.Parts{Evaluations: evals}, "2026-12-01T00:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	style := plot.New().X.Tick.Label
	for _, f := range bundle.Figures(res) {
		svg, err := figure.Render(f, "svg")
		if err != nil {
			t.Fatal(err)
		}
		width, _ := strconv.ParseFloat(svgWidth.FindStringSubmatch(string(svg))[1], 64)
		type box struct {
			text      string
			x0, x1, y float64
		}
		var boxes []box
		for _, m := range svgText.FindAllStringSubmatch(string(svg), -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			size, _ := strconv.ParseFloat(m[3], 64)
			style.Font.Size = vg.Length(size)
			w := float64(style.Width(m[4]) / vg.Points(1))
			boxes = append(boxes, box{m[4], x, x + browserSlack*w, y})
		}
		if len(boxes) == 0 {
			t.Fatalf("%s: no text found", f.Name)
		}
		slices.SortFunc(boxes, func(a, b box) int {
			if a.y != b.y {
				return int(math.Copysign(1, a.y-b.y))
			}
			return int(math.Copysign(1, a.x0-b.x0))
		})
		for i, b := range boxes {
			if b.x0 < 0 || b.x1 > width {
				t.Errorf("%s: %q spans %.0f-%.0f pt of a %.0f pt canvas", f.Name, b.text, b.x0, b.x1, width)
			}
			if i > 0 && boxes[i-1].y == b.y && boxes[i-1].x1 > b.x0 {
				t.Errorf("%s: %q runs into %q", f.Name, boxes[i-1].text, b.text)
			}
		}
	}
}
