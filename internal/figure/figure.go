package figure

import "math"

// Figure is one picture: panels laid out in a grid, Columns wide.
type Figure struct {
	Name    string  `json:"name"` // file stem under figures/
	Title   string  `json:"title"`
	Columns int     `json:"columns"`
	Panels  []Panel `json:"panels"`
	// PanelWidth and PanelHeight are each panel's size in inches
	// (default 4.5 by 3).
	PanelWidth  float64 `json:"panel_width,omitempty"`
	PanelHeight float64 `json:"panel_height,omitempty"`
}

// Panel is one set of axes and what is drawn on them. Series carry a
// Style, an index into the palette, so one system keeps its colour in
// every panel and figure.
type Panel struct {
	Title  string `json:"title"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	// XRange and YRange fix the axes when set; otherwise they fit the data.
	XRange *[2]float64 `json:"x_range,omitempty"`
	YRange *[2]float64 `json:"y_range,omitempty"`
	// Categories name the x positions 0, 1, ... of a categorical axis.
	Categories []string    `json:"categories,omitempty"`
	Areas      []Area      `json:"areas,omitempty"`
	Bands      []Band      `json:"bands,omitempty"`
	Lines      []Line      `json:"lines,omitempty"`
	Intervals  []Intervals `json:"intervals,omitempty"`
	Boxes      []Box       `json:"boxes,omitempty"`
	Points     []Points    `json:"points,omitempty"`
	Rules      []Rule      `json:"rules,omitempty"`
}

// Line is a polyline through (X[i], Y[i]).
type Line struct {
	Label  string    `json:"label"`
	Style  int       `json:"style"`
	Dashed bool      `json:"dashed,omitempty"`
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
}

// Area is the region between Lo and Hi along X (a waveform envelope).
type Area struct {
	Label string    `json:"label"`
	X     []float64 `json:"x"`
	Lo    []float64 `json:"lo"`
	Hi    []float64 `json:"hi"`
}

// Band is a shaded stretch of the x axis: a negative span or an excluded
// interval.
type Band struct {
	Kind  string  `json:"kind"` // negative, excluded
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Points are markers; Shape is circle, triangle or cross.
type Points struct {
	Label string    `json:"label"`
	Style int       `json:"style"`
	Shape string    `json:"shape"`
	X     []float64 `json:"x"`
	Y     []float64 `json:"y"`
}

// Intervals are estimates with 95% intervals (error bars); Marked points
// are drawn as crosses (out of budget).
type Intervals struct {
	Label  string    `json:"label"`
	Style  int       `json:"style"`
	X      []float64 `json:"x"`
	Y      []Num     `json:"y"`
	Lo     []Num     `json:"lo"`
	Hi     []Num     `json:"hi"`
	Marked []bool    `json:"marked,omitempty"`
}

// Box is a box plot of Values at X.
type Box struct {
	Label  string    `json:"label"`
	Style  int       `json:"style"`
	X      float64   `json:"x"`
	Values []float64 `json:"values"`
}

// Rule is a reference line: Axis "x" draws a vertical line at Value,
// "y" a horizontal one.
type Rule struct {
	Label string  `json:"label"`
	Axis  string  `json:"axis"`
	Value float64 `json:"value"`
}

// Num is a number that may be undefined (NaN), written as null in JSON.
type Num float64

// MarshalJSON writes NaN as null.
func (n Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return []byte(formatFloat(float64(n))), nil
}
