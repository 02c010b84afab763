package score

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/floorbench/floorbench/internal/floor"
)

// intervals is a sorted list of disjoint closed intervals; contains answers
// "is t inside any of the original (possibly overlapping) intervals" exactly,
// since merging only joins intervals that share a point.
type intervals [][2]float64

func mergeIntervals(in [][2]float64) intervals {
	valid := make([][2]float64, 0, len(in))
	for _, iv := range in {
		if iv[0] <= iv[1] { // an inverted interval contains no point
			valid = append(valid, iv)
		}
	}
	slices.SortFunc(valid, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	var out intervals
	for _, iv := range valid {
		if n := len(out); n > 0 && iv[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], iv[1])
			continue
		}
		out = append(out, iv)
	}
	return out
}

func (s intervals) contains(t float64) bool {
	// The last interval starting at or before t is the only candidate.
	i := sort.Search(len(s), func(i int) bool { return s[i][0] > t }) - 1
	return i >= 0 && t <= s[i][1]
}

// window is a positive anchor's search window on its speaker's channel;
// index is the anchor's position in the gold's Positives.
type window struct {
	anchor, start, end float64
	index              int
}

// negative is a negative span's FP search window [start - tau_pre, end]
// and the anchored window's end, reach = max(end, span start + tau_max);
// index is the span's position in the gold's Negatives.
type negative struct {
	start, end, reach float64
	index             int
}

// speakerGold is one speaker's share of a task's gold, prepared for matching.
type speakerGold struct {
	windows   []window // in anchor time order
	exempt    intervals
	excluded  intervals
	negatives []negative // by start
}

// Matcher scores predictions for one task of one conversation against its
// gold (docs/protocol.md#matching). Preparing it once and calling Score for many sets of
// predictions is what makes threshold sweeps fast.
type Matcher struct {
	speakers []speakerGold // index speaker-1
	window   NegativeWindow
	// scratch, reused across Score calls
	kept    []float64
	claimed []bool
}

// NewMatcher prepares g for matching with p's windows: tau_pre and
// tau_max around anchors and spans, and its negative window for FP and TN
// (the counts under every window are kept too).
func NewMatcher(g *floor.TaskGold, p Params) *Matcher {
	tauPre, tauMax := p.TauPre, p.TauMax
	n := 0
	for _, a := range g.Positives {
		n = max(n, a.Speaker)
	}
	for _, s := range g.Negatives {
		n = max(n, s.Speaker)
	}
	m := &Matcher{speakers: make([]speakerGold, n), window: p.NegativeWindow}
	// Matching step 2: positives in time order (a stable sort, as TurnBench's).
	order := make([]int, len(g.Positives))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(g.Positives[a].Time, g.Positives[b].Time) })
	anchorTimes := make([][]float64, n)
	for _, i := range order {
		a := g.Positives[i]
		anchorTimes[a.Speaker-1] = append(anchorTimes[a.Speaker-1], a.Time)
	}
	for _, i := range order {
		a := g.Positives[i]
		times := anchorTimes[a.Speaker-1]
		next := math.Inf(1)
		// The window ends at the next anchor of the same speaker and task
		// strictly after this one (a fire past it belongs to that anchor).
		if i := sort.Search(len(times), func(i int) bool { return times[i] > a.Time }); i < len(times) {
			next = times[i]
		}
		sg := &m.speakers[a.Speaker-1]
		sg.windows = append(sg.windows, window{a.Time, a.Time - tauPre, min(a.Time+tauMax, next), i})
	}
	for k := range m.speakers {
		sg := &m.speakers[k]
		spans := make([][2]float64, len(sg.windows))
		for i, w := range sg.windows {
			spans[i] = [2]float64{w.start, w.end}
		}
		sg.exempt = mergeIntervals(spans)
	}
	excluded := make([][][2]float64, n)
	for _, s := range g.Excluded {
		if s.Speaker <= n {
			excluded[s.Speaker-1] = append(excluded[s.Speaker-1], [2]float64{s.Start, s.End})
		}
	}
	for k := range m.speakers {
		m.speakers[k].excluded = mergeIntervals(excluded[k])
	}
	for i, s := range g.Negatives {
		sg := &m.speakers[s.Speaker-1]
		sg.negatives = append(sg.negatives, negative{s.Start - tauPre, s.End, AnchoredWindow.end(s.Start, s.End, tauMax), i})
	}
	for k := range m.speakers {
		// Counts do not depend on span order; sorted spans let Score walk
		// the predictions once.
		slices.SortStableFunc(m.speakers[k].negatives, func(a, b negative) int { return cmp.Compare(a.start, b.start) })
	}
	return m
}

// Score matches predictions (predictions[k] are speaker k+1's strictly
// increasing commit times) against the gold. A speaker without predictions
// may be missing from the slice.
func (m *Matcher) Score(predictions [][]float64) Counts {
	var c Counts
	m.ScoreInto(predictions, &c)
	return c
}

// ScoreInto is Score accumulating into c, without allocating when c's
// latency slice has room.
func (m *Matcher) ScoreInto(predictions [][]float64, c *Counts) {
	m.score(predictions, c, nil)
}

// Outcomes say what happened to every gold item: Anchors[i] to the gold's
// Positives[i], Spans[i] to its Negatives[i].
type Outcomes struct {
	Anchors []AnchorOutcome
	Spans   []SpanOutcome
}

// AnchorOutcome is a positive's match: the prediction it claimed, if any.
type AnchorOutcome struct {
	Matched    bool
	Prediction float64
	LatencyMS  float64
}

// SpanOutcome is a negative span's verdict and the prediction that fired it.
type SpanOutcome struct {
	Fired      bool
	Prediction float64
}

// Explain scores like Score and also reports every item's outcome, for
// per-event tables and error anatomy.
func (m *Matcher) Explain(predictions [][]float64, positives, negatives int) (Counts, Outcomes) {
	var c Counts
	o := Outcomes{Anchors: make([]AnchorOutcome, positives), Spans: make([]SpanOutcome, negatives)}
	m.score(predictions, &c, &o)
	return c, o
}

func (m *Matcher) score(predictions [][]float64, c *Counts, o *Outcomes) {
	for k := range m.speakers {
		var times []float64
		if k < len(predictions) {
			times = predictions[k]
		}
		m.scoreSpeaker(&m.speakers[k], times, c, o)
	}
}

func (m *Matcher) scoreSpeaker(sg *speakerGold, times []float64, c *Counts, o *Outcomes) {
	// Matching step 1: predictions inside an excluded interval are invisible.
	// Both lists are sorted, so one merge-walk filters them.
	kept := m.kept[:0]
	x := 0
	for _, t := range times {
		for x < len(sg.excluded) && sg.excluded[x][1] < t {
			x++
		}
		if x < len(sg.excluded) && sg.excluded[x][0] <= t {
			continue
		}
		kept = append(kept, t)
	}
	m.kept = kept
	claimed := m.claimed[:0]
	for range kept {
		claimed = append(claimed, false)
	}
	m.claimed = claimed
	// Matching step 2: each window claims its earliest unclaimed prediction.
	// Window starts ascend, so the first candidate index only moves forward.
	first := 0
	for _, w := range sg.windows {
		for first < len(kept) && kept[first] < w.start {
			first++
		}
		i := first
		for ; i < len(kept) && kept[i] <= w.end; i++ {
			if !claimed[i] {
				break
			}
		}
		if i < len(kept) && kept[i] <= w.end {
			claimed[i] = true
			c.TP++
			latency := (kept[i] - w.anchor) * 1000.0
			c.LatenciesMS = append(c.LatenciesMS, latency)
			if o != nil {
				o.Anchors[w.index] = AnchorOutcome{true, kept[i], latency}
			}
		} else {
			c.FN++
		}
	}
	m.scoreNegatives(sg, kept, claimed, c, o)
}

// scoreNegatives is matching step 3: a span is an FP when an unclaimed
// prediction outside every positive window lies in its window, at most
// one per span. The earliest such prediction up to the anchored window's
// end decides both windows: it fires the anchored window, and the span
// window when it lies within the span's end.
func (m *Matcher) scoreNegatives(sg *speakerGold, kept []float64, claimed []bool, c *Counts, o *Outcomes) {
	// Spans are sorted by start, so the first index only moves forward.
	first := 0
	for _, span := range sg.negatives {
		for first < len(kept) && kept[first] < span.start {
			first++
		}
		at := -1
		for i := first; i < len(kept) && kept[i] <= span.reach; i++ {
			if !claimed[i] && !sg.exempt.contains(kept[i]) {
				at = i
				break
			}
		}
		anchored := at >= 0
		spanFired := anchored && kept[at] <= span.end
		tally(&c.Windows.Anchored, anchored)
		tally(&c.Windows.Span, spanFired)
		fired := spanFired
		if m.window == AnchoredWindow {
			fired = anchored
		}
		if fired {
			c.FP++
			if o != nil {
				o.Spans[span.index] = SpanOutcome{true, kept[at]}
			}
		} else {
			c.TN++
		}
	}
}

func tally(n *NegativeCounts, fired bool) {
	if fired {
		n.FP++
	} else {
		n.TN++
	}
}

// ScoreTask scores one task of one conversation (a convenience over
// NewMatcher(...).Score).
func ScoreTask(g *floor.TaskGold, predictions [][]float64, p Params) Counts {
	return NewMatcher(g, p).Score(predictions)
}
