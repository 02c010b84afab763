// Package figure draws floorbench's figures (docs/formats.md#bundle-files) with
// gonum.org/v1/plot: a Figure is plain data (panels of lines, intervals,
// boxes, markers, shaded spans and reference lines) so that what a figure
// draws can be golden-tested apart from how it looks, and Render turns it
// into SVG or PNG, the same bytes for the same figure.
package figure
