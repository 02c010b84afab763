package floor

import (
	"reflect"
	"testing"
)

func seg(start, end float64, label string) AnnotatedSegment {
	return AnnotatedSegment{Start: start, End: end, Label: label}
}

// same returns three identical annotator tracks.
func same(s ...AnnotatedSegment) SpeakerAnnotations {
	return SpeakerAnnotations{s, s, s}
}

func TestConsensusMajorityMedianRounded(t *testing.T) {
	// a and b agree within 0.2 s; c's start is 0.3 s off (outside the
	// tolerance against a) so the group is {a, b}: median of two values.
	events := [Annotators][]consensusEvent{
		{{1, 1.00001, 3.0, ClassTurn}},
		{{1, 1.10002, 3.1, ClassTurn}},
		{{1, 1.30001, 3.05, ClassTurn}},
	}
	got, excluded := findConsensus(events, 1)
	want := []consensusEvent{{1, 1.0500, 3.05, ClassTurn}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("consensus %+v, want %+v", got, want)
	}
	// c's event is unused but overlaps the consensus: settled, not excluded.
	if len(excluded) != 0 {
		t.Errorf("excluded %+v, want none", excluded)
	}
}

func TestConsensusNoMajorityIsExcluded(t *testing.T) {
	events := [Annotators][]consensusEvent{
		{{1, 5, 6, ClassBackchannel}},
		{{1, 5.1, 6.2, ClassNonContent}}, // another class: no match
		{{1, 9, 9.5, ClassBackchannel}},  // too far to match
	}
	got, excluded := findConsensus(events, 1)
	if len(got) != 0 {
		t.Errorf("consensus %+v, want none", got)
	}
	want := []Span{{1, 5, 6.2}, {1, 9, 9.5}} // overlapping disagreements merged
	if !reflect.DeepEqual(excluded, want) {
		t.Errorf("excluded %+v, want %+v", excluded, want)
	}
}

func TestRound4IsHalfEvenOnTheExactValue(t *testing.T) {
	cases := map[float64]float64{
		1.00005:  1.0001, // 1.00005 is stored as 1.0000500000000001
		0.12345:  0.1235, // stored slightly above the half
		2.5e-5:   0.0,    // the fifth decimal is 2
		0.03125:  0.0312, // exactly half way: to even
		0.15625:  0.1562,
		0.09375:  0.0938,
		1.23456:  1.2346,
		-0.00004: -0.0,
	}
	for in, want := range cases {
		if got := round4(in); got != want {
			t.Errorf("round4(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestDeriveTurnBenchDyadic(t *testing.T) {
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
	wantEOT := []Anchor{{1, 6.0}, {2, 15.0}}
	if !reflect.DeepEqual(g.EOT.Positives, wantEOT) {
		t.Errorf("EOT positives %+v, want %+v", g.EOT.Positives, wantEOT)
	}
	// Speaker 2's gap 10.0-12.0 is a pause (they resume before speaker 1
	// takes a turn); speaker 1's backchannel at 11.0 does not cut it.
	wantHolds := []Span{{1, 3.0, 3.8}, {2, 10.0, 12.0}}
	if !reflect.DeepEqual(g.EOT.Negatives, wantHolds) {
		t.Errorf("EOT negatives %+v, want %+v", g.EOT.Negatives, wantHolds)
	}
	if want := []Anchor{{2, 12.0}}; !reflect.DeepEqual(g.INT.Positives, want) {
		t.Errorf("INT positives %+v, want %+v", g.INT.Positives, want)
	}
	if want := []Span{{1, 11.0, 11.4}}; !reflect.DeepEqual(g.INT.Negatives, want) {
		t.Errorf("INT negatives %+v, want %+v", g.INT.Negatives, want)
	}
}

func TestPauseTruncation(t *testing.T) {
	// Speaker 1 pauses 2.0-6.0. Their own laughter at 3.0 cuts the pause
	// there; in the second case speaker 2's non-floor-taking interruption
	// at 4.0 cuts it.
	own := []SpeakerAnnotations{
		same(seg(0, 2, "Normal Turn"), seg(3, 3.5, "Laughter"), seg(6, 8, "Normal Turn")),
		same(),
	}
	if g := DeriveTurnBench("x", 10, own); !reflect.DeepEqual(g.EOT.Negatives, []Span{{1, 2, 3}}) {
		t.Errorf("own vocalisation: %+v", g.EOT.Negatives)
	}
	barge := []SpeakerAnnotations{
		same(seg(0, 2, "Normal Turn"), seg(6, 8, "Normal Turn")),
		same(seg(4, 4.5, "Non-floor Taking Cooperative Interruption")),
	}
	g := DeriveTurnBench("x", 10, barge)
	if !reflect.DeepEqual(g.EOT.Negatives, []Span{{1, 2, 4}}) {
		t.Errorf("barge-in: %+v", g.EOT.Negatives)
	}
	// The attempt is excluded from INT, neither positive nor negative.
	if len(g.INT.Positives) != 0 || !reflect.DeepEqual(g.INT.Excluded, []Span{{2, 4, 4.5}}) {
		t.Errorf("INT: %+v", g.INT)
	}
}

func TestEndInsideOwnSegmentIsNoBoundary(t *testing.T) {
	// A floor-taking interruption label inside speaker 1's longer turn is a
	// Turn in the turn view; its end at 3.0 lies inside 1.0-5.0.
	sp := []SpeakerAnnotations{
		same(seg(1, 5, "Normal Turn"), seg(2, 3, "Floor-taking Cooperative Interruption")),
		same(seg(6, 8, "Normal Turn")),
	}
	g := DeriveTurnBench("x", 10, sp)
	if want := []Anchor{{1, 5}, {2, 8}}; !reflect.DeepEqual(g.EOT.Positives, want) {
		t.Errorf("EOT positives %+v, want %+v", g.EOT.Positives, want)
	}
}
