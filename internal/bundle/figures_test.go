package bundle_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/bundle"
	"github.com/floorbench/floorbench/internal/figure"
)

// TestFigureInputsGolden pins the numbers every figure of the fixture
// bundle draws: curves, intervals, latencies, anatomy, sim-to-real and
// the chosen timelines.
func TestFigureInputsGolden(t *testing.T) {
	_, res := buildBundle(t, false, nil)
	figs := bundle.Figures(res)
	data, err := json.MarshalIndent(figs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "figures.json", append(data, '\n'))
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	want := []string{"operating-curve-eot", "recall-by-speakers-eot", "by-type-eot", "latency-eot",
		"operating-curve-int", "recall-by-speakers-int", "by-type-int", "latency-int", "error-anatomy", "sim-to-real"}
	if got := strings.Join(names, " "); !strings.HasPrefix(got, strings.Join(want, " ")+" timeline-mptb-mini-eot-1") {
		t.Errorf("figures %s, want %s then the timelines", got, strings.Join(want, " "))
	}
}

// TestFiguresAreInTheBundleAndReport: every figure is an SVG file of the
// bundle that report.md shows, and drawing it again gives the same bytes.
func TestFiguresAreInTheBundleAndReport(t *testing.T) {
	files, res := buildBundle(t, false, nil)
	byName := map[string][]byte{}
	for _, f := range files {
		byName[f.Name] = f.Data
	}
	figs := bundle.Figures(res)
	if len(figs) < 12 {
		t.Fatalf("%d figures", len(figs))
	}
	for _, f := range figs {
		name := bundle.FigureFile(f.Name, "svg")
		svg, ok := byName[name]
		if !ok {
			t.Errorf("bundle lacks %s", name)
			continue
		}
		if !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte("</svg>")) {
			t.Errorf("%s is not an SVG document", name)
		}
		if !bytes.Contains(byName["report.md"], []byte("]("+name+")")) {
			t.Errorf("report.md does not show %s", name)
		}
		again, err := figure.Render(f, "svg")
		if err != nil || !bytes.Equal(again, svg) {
			t.Errorf("%s drawn again differs (%v)", name, err)
		}
	}
}
