package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Formats are the formats Render writes.
var Formats = []string{"svg", "png"}

// palette is Tableau 10: distinct colours that survive greyscale printing
// in order.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff}, {0x59, 0xa1, 0x4f, 0xff},
	{0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// Colour is the colour of style s (the palette repeats).
func Colour(s int) color.RGBA { return palette[((s%len(palette))+len(palette))%len(palette)] }

var (
	ruleColour = color.RGBA{0x33, 0x33, 0x33, 0xff}
	waveColour = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}
	// Translucent colours are NRGBA: an RGBA is alpha-premultiplied, and
	// one with a channel above its alpha is no colour (SVG wrote
	// fill:#40018C195, which browsers drop and fill black).
	negativeColour = color.NRGBA{0xe1, 0x57, 0x59, 0x38}
	excludedColour = color.NRGBA{0x80, 0x80, 0x80, 0x48}
)

// Render draws f as svg or png. The same figure gives the same bytes: SVG
// text is not embedded as fonts and every number is printed with fixed
// precision.
func Render(f Figure, format string) ([]byte, error) {
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("figure %s has no panels", f.Name)
	}
	cols := max(1, min(f.Columns, len(f.Panels)))
	rows := (len(f.Panels) + cols - 1) / cols
	pw, ph := f.PanelWidth, f.PanelHeight
	if pw <= 0 {
		pw = 4.5
	}
	if ph <= 0 {
		ph = 3
	}
	pw = max(pw, legiblePanelWidth(f.Panels))
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	legend := &figureLegend{seen: map[string]bool{}, l: plot.NewLegend()}
	for i, p := range f.Panels {
		pl, err := panelPlot(p, legend)
		if err != nil {
			return nil, fmt.Errorf("figure %s, panel %q: %w", f.Name, p.Title, err)
		}
		grid[i/cols][i%cols] = pl
	}
	// One legend for the figure, right of the panels: a series keeps its
	// colour in every panel, and no legend hides data.
	legend.l.TextStyle.Font.Size = 8
	legend.l.Top, legend.l.Left = true, true
	legendW := vg.Length(0)
	for label := range legend.seen {
		legendW = max(legendW, legend.l.TextStyle.Width(label)+legend.l.ThumbnailWidth+0.3*vg.Inch)
	}
	titleH := vg.Length(0)
	titleStyle := plot.New().Title.TextStyle
	if f.Title != "" {
		titleH = 0.35 * vg.Inch
		titleStyle.Font.Size = titleSize
	}
	panelsW := vg.Length(float64(cols)*pw) * vg.Inch
	w, h := panelsW+legendW, vg.Length(float64(rows)*ph)*vg.Inch+titleH
	if f.Title != "" {
		// The title keeps a readable size: the figure widens to hold it,
		// with room for a wider font.
		w = max(w, centredRoom*titleStyle.Width(f.Title)+0.3*vg.Inch)
	}
	var canvas vg.CanvasSizer
	var svg *vgsvg.Canvas
	var img *vgimg.Canvas
	switch format {
	case "svg":
		svg = vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))
		canvas = svg
	case "png":
		img = vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))
		canvas = img
	default:
		return nil, fmt.Errorf("figure format %q: want svg or png", format)
	}
	dc := draw.New(canvas)
	if f.Title != "" {
		dc.FillText(titleStyle, vg.Point{X: w / 2, Y: h - 0.08*vg.Inch}, f.Title)
		dc.Max.Y -= titleH
	}
	if legendW > 0 {
		legend.l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: panelsW + 0.1*vg.Inch, Y: dc.Min.Y}, Max: vg.Point{X: w, Y: dc.Max.Y - 0.3*vg.Inch}}})
		dc.Max.X = panelsW
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 0.15 * vg.Inch, PadY: 0.15 * vg.Inch, PadTop: 0.05 * vg.Inch, PadBottom: 0.05 * vg.Inch, PadLeft: 0.05 * vg.Inch, PadRight: 0.1 * vg.Inch}
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c, pl := range grid[r] {
			if pl != nil {
				pl.Draw(canvases[r][c])
			}
		}
	}
	var buf bytes.Buffer
	var err error
	if svg != nil {
		_, err = svg.WriteTo(&buf)
	} else {
		_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(&buf)
	}
	return buf.Bytes(), err
}

// SVG text is not embedded as fonts, so a browser draws it in the fonts it
// has, which may be wider than the metrics the layout measured with:
// fontSlack is the room every title and category label is given for
// that (a fallback serif about a fifth wider than Liberation Serif).
const fontSlack = 1.3

// centredRoom is the width a centred text needs per unit of its measured
// width: SVG text starts where the layout put its left edge, so a wider
// font grows it to the right only, by the whole slack.
const centredRoom = vg.Length(2*fontSlack - 1)

// Font sizes, in points, of the figure title, panel titles and tick
// labels (gonum's defaults for the latter).
const (
	titleSize      = 12
	panelTitleSize = 10
)

// legiblePanelWidth is the least width (inches) at which every panel's
// title and every category label fit with fontSlack to spare, category
// labels side by side without touching.
func legiblePanelWidth(panels []Panel) float64 {
	p := plot.New()
	tick := p.X.Tick.Label
	title := p.Title.TextStyle
	title.Font.Size = panelTitleSize
	axis := 0.7 * vg.Inch // the y axis, its label and ticks
	need := vg.Length(0)
	for _, pn := range panels {
		need = max(need, centredRoom*title.Width(pn.Title)+0.2*vg.Inch)
		widest := vg.Length(0)
		for _, c := range pn.Categories {
			widest = max(widest, tick.Width(c))
		}
		if len(pn.Categories) > 0 {
			need = max(need, axis+vg.Length(len(pn.Categories))*(vg.Length(fontSlack)*widest+0.15*vg.Inch))
		}
	}
	return float64(need / vg.Inch)
}

// panelPlot turns a panel into a gonum plot: shaded bands and waveform
// first, then lines, intervals, boxes, markers and rules on top.
func panelPlot(p Panel, legend *figureLegend) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.Title
	pl.Title.TextStyle.Font.Size = panelTitleSize
	pl.X.Label.Text, pl.Y.Label.Text = p.XLabel, p.YLabel
	if len(p.Categories) > 0 {
		pl.NominalX(p.Categories...)
		pl.X.Min, pl.X.Max = -0.5, float64(len(p.Categories))-0.5
	}
	if len(p.Bands) > 0 {
		pl.Add(bands(p.Bands))
	}
	for _, a := range p.Areas {
		poly, err := area(a)
		if err != nil {
			return nil, err
		}
		pl.Add(poly)
	}
	addLegend := legend.add
	for _, l := range p.Lines {
		points := xys(l.X, l.Y)
		if len(points) == 0 {
			continue
		}
		line, err := plotter.NewLine(points)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", l.Label, err)
		}
		line.Color = Colour(l.Style)
		line.Width = vg.Points(1.2)
		if l.Dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		pl.Add(line)
		addLegend(l.Label, line)
	}
	for _, iv := range p.Intervals {
		if err := addIntervals(pl, iv, addLegend); err != nil {
			return nil, err
		}
	}
	for _, b := range p.Boxes {
		values := slices.DeleteFunc(slices.Clone(b.Values), func(v float64) bool { return !finite(v) })
		if len(values) == 0 {
			continue
		}
		box, err := plotter.NewBoxPlot(vg.Points(18), b.X, plotter.Values(values))
		if err != nil {
			return nil, fmt.Errorf("box %q: %w", b.Label, err)
		}
		box.FillColor = Colour(b.Style)
		box.GlyphStyle.Radius = vg.Points(1.5)
		pl.Add(box) // the axis names the boxes: no legend entry
	}
	for _, pts := range p.Points {
		points := xys(pts.X, pts.Y)
		if len(points) == 0 {
			continue
		}
		s, err := plotter.NewScatter(points)
		if err != nil {
			return nil, fmt.Errorf("points %q: %w", pts.Label, err)
		}
		s.GlyphStyle = glyph(pts.Shape, Colour(pts.Style))
		pl.Add(s)
		addLegend(pts.Label, s)
	}
	for _, r := range p.Rules {
		pl.Add(rule(r))
	}
	if p.XRange != nil {
		pl.X.Min, pl.X.Max = p.XRange[0], p.XRange[1]
	}
	if p.YRange != nil {
		pl.Y.Min, pl.Y.Max = p.YRange[0], p.YRange[1]
	}
	pl.Add(plotter.NewGrid())
	return pl, nil
}

func glyph(shape string, c color.Color) draw.GlyphStyle {
	g := draw.GlyphStyle{Color: c, Radius: vg.Points(3)}
	switch shape {
	case "triangle":
		g.Shape = draw.TriangleGlyph{}
	case "cross":
		g.Shape, g.Radius = draw.CrossGlyph{}, vg.Points(4)
	case "ring":
		g.Shape = draw.RingGlyph{}
	default:
		g.Shape = draw.CircleGlyph{}
	}
	return g
}

// addIntervals draws estimates with error bars; undefined estimates are
// left out and marked ones are crosses.
func addIntervals(pl *plot.Plot, iv Intervals, addLegend func(string, plot.Thumbnailer)) error {
	var pts, marked plotter.XYs
	var bars errorBars
	for i, x := range iv.X {
		y := float64(iv.Y[i])
		if math.IsNaN(y) {
			continue
		}
		if i < len(iv.Marked) && iv.Marked[i] {
			marked = append(marked, plotter.XY{X: x, Y: y})
		} else {
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
		if lo, hi := float64(iv.Lo[i]), float64(iv.Hi[i]); !math.IsNaN(lo) && !math.IsNaN(hi) {
			bars.XYs = append(bars.XYs, plotter.XY{X: x, Y: y})
			bars.errs = append(bars.errs, [2]float64{y - lo, hi - y})
		}
	}
	if len(bars.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return fmt.Errorf("intervals %q: %w", iv.Label, err)
		}
		eb.Color = Colour(iv.Style)
		eb.Width = vg.Points(1)
		pl.Add(eb)
	}
	for _, set := range []struct {
		xys   plotter.XYs
		shape string
	}{{pts, "circle"}, {marked, "cross"}} {
		if len(set.xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(set.xys)
		if err != nil {
			return fmt.Errorf("intervals %q: %w", iv.Label, err)
		}
		s.GlyphStyle = glyph(set.shape, Colour(iv.Style))
		pl.Add(s)
		if set.shape == "circle" {
			addLegend(iv.Label, s)
		} else {
			addLegend("× out of budget", &plotter.Scatter{GlyphStyle: glyph("cross", ruleColour)})
		}
	}
	return nil
}

type errorBars struct {
	plotter.XYs
	errs [][2]float64
}

func (e errorBars) YError(i int) (float64, float64) { return e.errs[i][0], e.errs[i][1] }

func area(a Area) (*plotter.Polygon, error) {
	ring := make(plotter.XYs, 0, 2*len(a.X))
	for i, x := range a.X {
		ring = append(ring, plotter.XY{X: x, Y: a.Hi[i]})
	}
	for i := len(a.X) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: a.X[i], Y: a.Lo[i]})
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, fmt.Errorf("area %q: %w", a.Label, err)
	}
	poly.Color = waveColour
	poly.LineStyle.Width = 0
	return poly, nil
}

// xys pairs x and y, leaving out points that are undefined (NaN, such as
// an fp_rate with no negatives) or infinite: a figure draws what is
// defined, as intervals do, and never fails the bundle that holds it.
func xys(x, y []float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(x))
	for i := range x {
		if finite(x[i]) && finite(y[i]) {
			out = append(out, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// bands shades stretches of the x axis over the whole height.
type bands []Band

func (bs bands) Plot(c draw.Canvas, pl *plot.Plot) {
	tx, ty := pl.Transforms(&c)
	for _, b := range bs {
		col := negativeColour
		if b.Kind == "excluded" {
			col = excludedColour
		}
		x0, x1 := max(b.Start, pl.X.Min), min(b.End, pl.X.Max)
		if x1 <= x0 {
			continue
		}
		var path vg.Path
		path.Move(vg.Point{X: tx(x0), Y: ty(pl.Y.Min)})
		path.Line(vg.Point{X: tx(x1), Y: ty(pl.Y.Min)})
		path.Line(vg.Point{X: tx(x1), Y: ty(pl.Y.Max)})
		path.Line(vg.Point{X: tx(x0), Y: ty(pl.Y.Max)})
		path.Close()
		c.SetColor(col)
		c.Fill(path)
	}
}

// rule is a dashed reference line across the plot, labelled at its end.
type rule Rule

func (r rule) Plot(c draw.Canvas, pl *plot.Plot) {
	tx, ty := pl.Transforms(&c)
	var a, b vg.Point
	if r.Axis == "x" {
		if r.Value < pl.X.Min || r.Value > pl.X.Max {
			return
		}
		a, b = vg.Point{X: tx(r.Value), Y: ty(pl.Y.Min)}, vg.Point{X: tx(r.Value), Y: ty(pl.Y.Max)}
	} else {
		if r.Value < pl.Y.Min || r.Value > pl.Y.Max {
			return
		}
		a, b = vg.Point{X: tx(pl.X.Min), Y: ty(r.Value)}, vg.Point{X: tx(pl.X.Max), Y: ty(r.Value)}
	}
	c.StrokeLines(draw.LineStyle{Color: ruleColour, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, []vg.Point{a, b})
	if r.Label != "" {
		sty := pl.Legend.TextStyle
		sty.Font.Size = 7
		sty.Color = ruleColour
		if r.Axis == "x" {
			sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
			c.FillText(sty, vg.Point{X: b.X + vg.Points(2), Y: b.Y - vg.Points(2)}, r.Label)
		} else {
			sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
			c.FillText(sty, vg.Point{X: b.X - vg.Points(2), Y: b.Y + vg.Points(1)}, r.Label)
		}
	}
}

// DataRange widens the axis a rule is on to include it.
func (r rule) DataRange() (xmin, xmax, ymin, ymax float64) {
	inf := math.Inf(1)
	if r.Axis == "x" {
		return r.Value, r.Value, inf, -inf
	}
	return inf, -inf, r.Value, r.Value
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// figureLegend collects the legend entries of every panel, each label
// once, in the order first drawn.
type figureLegend struct {
	seen map[string]bool
	l    plot.Legend
}

func (fl *figureLegend) add(label string, th plot.Thumbnailer) {
	if label != "" && !fl.seen[label] {
		fl.seen[label] = true
		fl.l.Add(label, th)
	}
}
