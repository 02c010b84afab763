package score

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/floor"
)

const tauPre, tauMax = 0.25, 3.0

// paper is the published protocol: the windows above and the span
// negative window of the papers.
var paper = DefaultParams()

func anchors(speaker int, times ...float64) []floor.Anchor {
	var out []floor.Anchor
	for _, t := range times {
		out = append(out, floor.Anchor{Speaker: speaker, Time: t})
	}
	return out
}

func span(speaker int, start, end float64) floor.Span {
	return floor.Span{Speaker: speaker, Start: start, End: end}
}

func check(t *testing.T, name string, got Counts, tp, fn, fp, tn int, latencies ...float64) {
	t.Helper()
	if got.TP != tp || got.FN != fn || got.FP != fp || got.TN != tn {
		t.Errorf("%s: tp/fn/fp/tn = %d/%d/%d/%d, want %d/%d/%d/%d", name, got.TP, got.FN, got.FP, got.TN, tp, fn, fp, tn)
	}
	if len(latencies) != len(got.LatenciesMS) {
		t.Errorf("%s: latencies %v, want %v", name, got.LatenciesMS, latencies)
		return
	}
	for i := range latencies {
		if diff := got.LatenciesMS[i] - latencies[i]; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("%s: latencies %v, want %v", name, got.LatenciesMS, latencies)
		}
	}
}

// docs/protocol.md#matching step 1: predictions inside an excluded interval (closed) of
// the same speaker are dropped before matching.
func TestExcludedPredictionsAreInvisible(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{
		Positives: anchors(1, 6.1),
		Negatives: []floor.Span{span(1, 12, 13)},
		Excluded:  []floor.Span{span(1, 5, 6), span(2, 12, 13)},
	}
	check(t, "prediction on the excluded end", ScoreTask(g, [][]float64{{6.0}}, paper), 0, 1, 0, 1)
	check(t, "prediction just after it", ScoreTask(g, [][]float64{{6.001}}, paper), 1, 0, 0, 1, -99)
	// Another speaker's exclusion does not hide speaker 1's false positive.
	check(t, "other speaker's exclusion", ScoreTask(g, [][]float64{{12.5}}, paper), 0, 1, 1, 0)
}

// docs/protocol.md#matching step 2: the window [t-0.25, t+3.0] is closed at both ends.
func TestWindowEndsAreInclusive(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Positives: anchors(1, 10)}
	check(t, "at t-0.25", ScoreTask(g, [][]float64{{9.75}}, paper), 1, 0, 0, 0, -250)
	check(t, "at t+3.0", ScoreTask(g, [][]float64{{13.0}}, paper), 1, 0, 0, 0, 3000)
	check(t, "before the window", ScoreTask(g, [][]float64{{9.7499}}, paper), 0, 1, 0, 0)
	check(t, "after the deadline", ScoreTask(g, [][]float64{{13.0001}}, paper), 0, 1, 0, 0)
}

// docs/protocol.md#matching step 2: a window ends at the next anchor of the same speaker
// and task; other speakers' anchors do not shorten it.
func TestWindowClampedAtNextSameSpeakerAnchor(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Positives: append(anchors(1, 10, 11), anchors(2, 10.5)...)}
	// 11.2 is past the first window [9.75, 11]: it belongs to the second anchor.
	check(t, "clamped", ScoreTask(g, [][]float64{{11.2}}, paper), 1, 2, 0, 0, 200)
	// A prediction at exactly the next anchor is still inside the first window.
	check(t, "on the next anchor", ScoreTask(g, [][]float64{{11.0}}, paper), 1, 2, 0, 0, 1000)
	// Speaker 2's anchor at 10.5 does not clamp speaker 1's window at 10.
	g2 := &floor.TaskGold{Positives: append(anchors(1, 10), anchors(2, 10.5)...)}
	check(t, "other speaker", ScoreTask(g2, [][]float64{{12.5}}, paper), 1, 1, 0, 0, 2500)
}

// docs/protocol.md#matching step 2: each window claims the earliest unclaimed prediction;
// one prediction never satisfies two anchors.
func TestEarliestUnclaimedOneToOne(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Positives: anchors(1, 10, 10.2)}
	check(t, "one prediction, two anchors", ScoreTask(g, [][]float64{{10.1}}, paper), 1, 1, 0, 0, 100)
	check(t, "two predictions", ScoreTask(g, [][]float64{{10.1, 10.15}}, paper), 2, 0, 0, 0, 100, -50)
	g1 := &floor.TaskGold{Positives: anchors(1, 10)}
	check(t, "earliest wins", ScoreTask(g1, [][]float64{{10.5, 11.0, 12.0}}, paper), 1, 0, 0, 0, 500)
}

// docs/protocol.md#matching step 3: an unclaimed prediction in [s-0.25, e] is one FP per
// span, unless it lies inside a positive window of the same speaker.
func TestNegativeSpans(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Negatives: []floor.Span{span(1, 20, 21)}}
	check(t, "at s-0.25", ScoreTask(g, [][]float64{{19.75}}, paper), 0, 0, 1, 0)
	check(t, "before s-0.25", ScoreTask(g, [][]float64{{19.74}}, paper), 0, 0, 0, 1)
	check(t, "at the end", ScoreTask(g, [][]float64{{21.0}}, paper), 0, 0, 1, 0)
	check(t, "after the end", ScoreTask(g, [][]float64{{21.01}}, paper), 0, 0, 0, 1)
	check(t, "two predictions, one span", ScoreTask(g, [][]float64{{20.2, 20.6}}, paper), 0, 0, 1, 0)
	check(t, "other speaker's prediction", ScoreTask(g, [][]float64{nil, {20.5}}, paper), 0, 0, 0, 1)

	// A span overlapping a positive window: the claimed prediction is not an
	// FP, and neither is an unclaimed one inside the window.
	g2 := &floor.TaskGold{Positives: anchors(1, 19), Negatives: []floor.Span{span(1, 20, 23)}}
	check(t, "claimed", ScoreTask(g2, [][]float64{{20.5}}, paper), 1, 0, 0, 1, 1500)
	check(t, "exempt inside the window", ScoreTask(g2, [][]float64{{19.5, 21.5}}, paper), 1, 0, 0, 1, 500)
	check(t, "outside the window", ScoreTask(g2, [][]float64{{19.5, 22.5}}, paper), 1, 0, 1, 0, 500)
}

func TestSpeakersWithoutPredictions(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{Positives: anchors(3, 5), Negatives: []floor.Span{span(2, 1, 2)}}
	check(t, "no predictions at all", ScoreTask(g, nil, paper), 0, 1, 0, 1)
}

func TestExplainReportsEveryItemInGoldOrder(t *testing.T) {
	t.Parallel()
	g := &floor.TaskGold{
		Positives: []floor.Anchor{{Speaker: 2, Time: 30}, {Speaker: 1, Time: 10}, {Speaker: 1, Time: 20}},
		Negatives: []floor.Span{{Speaker: 1, Start: 25, End: 26}, {Speaker: 1, Start: 14, End: 15}},
	}
	c, o := NewMatcher(g, paper).Explain([][]float64{{10.5, 14.5}, {31}}, len(g.Positives), len(g.Negatives))
	check(t, "explain", c, 2, 1, 1, 1, 500, 1000)
	want := []AnchorOutcome{{true, 31, 1000}, {true, 10.5, 500}, {}}
	for i, w := range want {
		if d := o.Anchors[i]; d.Matched != w.Matched || d.Prediction != w.Prediction || math.Abs(d.LatencyMS-w.LatencyMS) > 1e-9 {
			t.Errorf("anchor %d: %+v, want %+v", i, d, w)
		}
	}
	if o.Spans[0] != (SpanOutcome{}) || o.Spans[1] != (SpanOutcome{true, 14.5}) {
		t.Errorf("spans %+v", o.Spans)
	}
}
