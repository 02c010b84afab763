package floor

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func seg(start, end float64, label string) AnnotatedSegment {
	return AnnotatedSegment{Start: start, End: end, Label: label}
}

// ev is a float-timed event of speaker 1.
func ev(start, end float64, class string) consensusEvent {
	return consensusEvent{speaker: 1, start: start, end: end, label: class}
}

// same returns three identical annotator tracks.
func same(s ...AnnotatedSegment) SpeakerAnnotations {
	return SpeakerAnnotations{s, s, s}
}

func TestConsensusMajorityMedianRounded(t *testing.T) {
	t.Parallel()
	// a and b agree within 0.2 s; c's start is 0.3 s off (outside the
	// tolerance against a) so the group is {a, b}: median of two values.
	events := [Annotators][]consensusEvent{
		{ev(1.00001, 3.0, ClassTurn)},
		{ev(1.10002, 3.1, ClassTurn)},
		{ev(1.30001, 3.05, ClassTurn)},
	}
	got, excluded := findConsensus(events, 1)
	want := []consensusEvent{ev(1.0500, 3.05, ClassTurn)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("consensus %+v, want %+v", got, want)
	}
	// c's event is unused but overlaps the consensus: settled, not excluded.
	if len(excluded) != 0 {
		t.Errorf("excluded %+v, want none", excluded)
	}
}

func TestConsensusNoMajorityIsExcluded(t *testing.T) {
	t.Parallel()
	events := [Annotators][]consensusEvent{
		{ev(5, 6, ClassBackchannel)},
		{ev(5.1, 6.2, ClassNonContent)}, // another class: no match
		{ev(9, 9.5, ClassBackchannel)},  // too far to match
	}
	got, excluded := findConsensus(events, 1)
	if len(got) != 0 {
		t.Errorf("consensus %+v, want none", got)
	}
	want := []Span{{Speaker: 1, Start: 5, End: 6.2}, {Speaker: 1, Start: 9, End: 9.5}} // overlapping disagreements merged
	if !reflect.DeepEqual(excluded, want) {
		t.Errorf("excluded %+v, want %+v", excluded, want)
	}
}

func TestRound4IsHalfEvenOnTheExactValue(t *testing.T) {
	t.Parallel()
	cases := map[float64]float64{
		1.00005:  1.0001, // 1.00005 is stored as 1.0000500000000001
		0.12345:  0.1235, // stored slightly above the half
		2.5e-5:   0.0,    // the fifth decimal is 2
		0.03125:  0.0312, // exactly half way: to even
		0.15625:  0.1562,
		0.09375:  0.0938,
		1.23456:  1.2346,
		-0.00004: math.Copysign(0, -1), // Python's round keeps the sign of zero
	}
	for in, want := range cases {
		if got := round4(in); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("round4(%v) = %v, want %v", in, got, want)
		}
	}
}

// TestRound4IsItsText checks the arithmetic rounding against the text's
// on exact ties (k + 0.5 ten-thousandths, and their neighbours an ulp
// away), on times as annotators write them and on random doubles.
func TestRound4IsItsText(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	var xs []float64
	for range 200000 {
		tie := (float64(rng.IntN(2_000_000_000)) + 0.5) / 1e4 * float64(1-2*rng.IntN(2))
		xs = append(xs, tie, math.Nextafter(tie, 0), math.Nextafter(tie, math.Inf(1)),
			float64(rng.IntN(3_600_000))/1000, rng.Float64()*7200, (rng.Float64()-0.5)*math.Pow(10, float64(rng.IntN(30)-12)),
			math.Float64frombits(rng.Uint64()))
	}
	for _, x := range xs {
		if got, want := round4(x), round4Text(x); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("round4(%b) = %v, round4Text gives %v", x, got, want)
		}
	}
}

func FuzzRound4(f *testing.F) {
	for _, x := range []float64{0.03125, 1.00005, -0.00004, 12.34565, 1e300} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if got, want := round4(x), round4Text(x); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("round4(%b) = %v, round4Text gives %v", x, got, want)
		}
	})
}

// nearestByScan is nearestUnused by its definition: every event in order,
// the first of the nearest within the match window.
func nearestByScan(events []consensusEvent, used []bool, start float64, class string) (int, bool) {
	best, bestDistance := -1, math.Inf(1)
	for i, e := range events {
		if used[i] || e.label != class {
			continue
		}
		if d := math.Abs(e.start - start); d < bestDistance && d <= tbMatchWindow {
			best, bestDistance = i, d
		}
	}
	return best, best >= 0
}

// The binary-searched nearest event is the scan's, on events out of order,
// with equal starts (ties go to the earliest in the annotator's order),
// starts exactly a window away and used events.
func TestNearestUnusedIsTheScan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	classes := []string{ClassTurn, ClassBackchannel}
	for trial := range 2000 {
		events := make([]consensusEvent, rng.IntN(30))
		used := make([]bool, len(events))
		for i := range events {
			events[i] = ev(float64(rng.IntN(40))/8, 0, classes[rng.IntN(2)])
			used[i] = rng.IntN(5) == 0
		}
		idx := newStartIndex(events)
		for range 20 {
			start, class := float64(rng.IntN(48))/8-0.5, classes[rng.IntN(2)]
			gi, gok := idx.nearestUnused(events, used, start, class)
			wi, wok := nearestByScan(events, used, start, class)
			if gi != wi || gok != wok {
				t.Fatalf("trial %d, start %v %s: nearestUnused = %d %v, the scan %d %v", trial, start, class, gi, gok, wi, wok)
			}
		}
	}
}

// Python's statistics.median and round keep an int an int: the middle of
// an odd count as given (of equal values, the one a stable sort leaves in
// the middle), the mean of two as a float.
func TestMedianAndRoundKeepPythonTypes(t *testing.T) {
	t.Parallel()
	i, f := func(v float64) number { return number{v, true} }, func(v float64) number { return number{v, false} }
	cases := []struct {
		in   []number
		want number
	}{
		{[]number{i(60), i(61)}, f(60.5)},
		{[]number{i(60), i(60)}, f(60)},
		{[]number{i(61), f(59.5), i(60)}, i(60)},
		{[]number{i(60), f(60), i(60)}, f(60)},
		{[]number{f(60), i(60), i(60)}, i(60)},
		{[]number{f(1.00001), f(1.10002), f(1.30001)}, f(1.10002)},
	}
	for _, c := range cases {
		if got := pyMedian(c.in); got != c.want {
			t.Errorf("median %v = %v, want %v", c.in, got, c.want)
		}
	}
	if got := pyRound4(i(3)); got != i(3) {
		t.Errorf("round(3, 4) = %v, want the int 3", got)
	}
	if got := pyRound4(f(1.23456)); got != f(1.2346) {
		t.Errorf("round(1.23456, 4) = %v, want the float 1.2346", got)
	}
}

func TestDeriveTurnBenchDyadic(t *testing.T) {
	t.Parallel()
	speaker1 := same(
		seg(0.5, 3.0, "Normal Turn"),
		seg(3.8, 6.0, "Normal Turn"), // pause 3.0-3.8 before it: a hold
		seg(11.0, 11.4, "Continuer Backchannel"),
	)
	speaker2 := same(
		seg(6.5, 10.0, "Normal Turn"),
		seg(12.0, 15.0, "Floor-taking Competitive Interruption"),
	)
	g := DeriveTurnBench("x", 20, []SpeakerAnnotations{speaker1, speaker2})
	wantEOT := []Anchor{{Speaker: 1, Time: 6.0}, {Speaker: 2, Time: 15.0}}
	if !reflect.DeepEqual(g.EOT.Positives, wantEOT) {
		t.Errorf("EOT positives %+v, want %+v", g.EOT.Positives, wantEOT)
	}
	// Speaker 2's gap 10.0-12.0 is a pause (they resume before speaker 1
	// takes a turn); speaker 1's backchannel at 11.0 does not cut it.
	wantHolds := []Span{{Speaker: 1, Start: 3.0, End: 3.8}, {Speaker: 2, Start: 10.0, End: 12.0}}
	if !reflect.DeepEqual(g.EOT.Negatives, wantHolds) {
		t.Errorf("EOT negatives %+v, want %+v", g.EOT.Negatives, wantHolds)
	}
	if want := []Anchor{{Speaker: 2, Time: 12.0}}; !reflect.DeepEqual(g.INT.Positives, want) {
		t.Errorf("INT positives %+v, want %+v", g.INT.Positives, want)
	}
	if want := []Span{{Speaker: 1, Start: 11.0, End: 11.4}}; !reflect.DeepEqual(g.INT.Negatives, want) {
		t.Errorf("INT negatives %+v, want %+v", g.INT.Negatives, want)
	}
}

func TestPauseTruncation(t *testing.T) {
	t.Parallel()
	// Speaker 1 pauses 2.0-6.0. Their own laughter at 3.0 cuts the pause
	// there; in the second case speaker 2's non-floor-taking interruption
	// at 4.0 cuts it.
	own := []SpeakerAnnotations{
		same(seg(0, 2, "Normal Turn"), seg(3, 3.5, "Laughter"), seg(6, 8, "Normal Turn")),
		same(),
	}
	if g := DeriveTurnBench("x", 10, own); !reflect.DeepEqual(g.EOT.Negatives, []Span{{Speaker: 1, Start: 2, End: 3}}) {
		t.Errorf("own vocalisation: %+v", g.EOT.Negatives)
	}
	barge := []SpeakerAnnotations{
		same(seg(0, 2, "Normal Turn"), seg(6, 8, "Normal Turn")),
		same(seg(4, 4.5, "Non-floor Taking Cooperative Interruption")),
	}
	g := DeriveTurnBench("x", 10, barge)
	if !reflect.DeepEqual(g.EOT.Negatives, []Span{{Speaker: 1, Start: 2, End: 4}}) {
		t.Errorf("barge-in: %+v", g.EOT.Negatives)
	}
	// The attempt is excluded from INT, neither positive nor negative.
	if len(g.INT.Positives) != 0 || !reflect.DeepEqual(g.INT.Excluded, []Span{{Speaker: 2, Start: 4, End: 4.5}}) {
		t.Errorf("INT: %+v", g.INT)
	}
}

func TestEndInsideOwnSegmentIsNoBoundary(t *testing.T) {
	t.Parallel()
	// A floor-taking interruption label inside speaker 1's longer turn is a
	// Turn in the turn view; its end at 3.0 lies inside 1.0-5.0.
	sp := []SpeakerAnnotations{
		same(seg(1, 5, "Normal Turn"), seg(2, 3, "Floor-taking Cooperative Interruption")),
		same(seg(6, 8, "Normal Turn")),
	}
	g := DeriveTurnBench("x", 10, sp)
	if want := []Anchor{{Speaker: 1, Time: 5}, {Speaker: 2, Time: 8}}; !reflect.DeepEqual(g.EOT.Positives, want) {
		t.Errorf("EOT positives %+v, want %+v", g.EOT.Positives, want)
	}
}
