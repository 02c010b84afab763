package swbd

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

var (
	//go:embed fto.txt
	ftoText string
	//go:embed pause.txt
	pauseText string
)

// Distribution is a sample of one timing quantity, sorted ascending.
type Distribution struct {
	Name   string
	Values []float64
}

var (
	offsets, pauses, overlaps Distribution
	loadOnce                  sync.Once
)

func load() {
	offsets = mustParse("fto", ftoText)
	pauses = mustParse("pause", pauseText)
	overlaps = Distribution{Name: "overlap"}
	for _, x := range offsets.Values {
		if x < 0 {
			overlaps.Values = append(overlaps.Values, -x)
		}
	}
	slices.Sort(overlaps.Values)
}

// mustParse reads an embedded sample; a malformed line is a build defect.
func mustParse(name, text string) Distribution {
	var v []float64
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		x, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			panic(fmt.Sprintf("swbd: %s.txt line %d: %q is not a finite number", name, i+1, line))
		}
		v = append(v, x)
	}
	slices.Sort(v)
	return Distribution{Name: name, Values: v}
}

// Offsets are Switchboard's floor-transfer offsets in seconds (next
// speaker's start minus the previous speaker's end; negative: overlap).
func Offsets() Distribution { loadOnce.Do(load); return offsets }

// Pauses are Switchboard's within-speaker pauses in seconds (at least 0.2).
func Pauses() Distribution { loadOnce.Do(load); return pauses }

// Overlaps are the magnitudes of Switchboard's negative floor-transfer
// offsets, in seconds: at a floor transfer in overlap, how long the
// previous speaker went on talking after the next one started.
func Overlaps() Distribution { loadOnce.Do(load); return overlaps }

// At is the distribution's quantile function: the value below which a
// share u of the sample lies, interpolated linearly between order
// statistics (numpy's default percentile). u is clamped to [0, 1].
func (d Distribution) At(u float64) float64 {
	return Quantile(d.Values, u)
}

// Share is the distribution's empirical distribution function: the share
// of the sample at or below x.
func (d Distribution) Share(x float64) float64 {
	if len(d.Values) == 0 {
		return math.NaN()
	}
	n, _ := slices.BinarySearch(d.Values, math.Nextafter(x, math.Inf(1)))
	return float64(n) / float64(len(d.Values))
}

// Quantile is the u-quantile of sorted, linear between order statistics.
func Quantile(sorted []float64, u float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	u = min(max(u, 0), 1)
	pos := u * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// KS is the two-sample Kolmogorov–Smirnov distance between samples a and
// b: the largest gap between their empirical distribution functions. It
// is NaN when either sample is empty.
func KS(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	x, y := slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	var d float64
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}
