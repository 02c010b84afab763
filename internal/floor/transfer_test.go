package floor

import (
	"encoding/json"
	"math"
	"testing"
)

func TestTransfersFollowTheFloor(t *testing.T) {
	t.Parallel()
	// The shape of an MPTB log: 1 is interrupted by 2, who goes on with a
	// turn; 1 answers after a gap; 3 backchannels (not a floor segment) and
	// speaks a turn wholly inside 1's, which is no transfer; 2 takes over in
	// overlap.
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0.9, End: 4.4, Ending: Interrupted},
		{Kind: Interruption, Speaker: 2, Start: 3.9, End: 6.0},
		{Kind: Turn, Speaker: 2, Start: 6.2, End: 12.0, Ending: Yielded},
		{Kind: Turn, Speaker: 1, Start: 12.25, End: 18.0, Ending: Yielded},
		{Kind: Backchannel, Speaker: 3, Start: 13, End: 13.4},
		{Kind: Turn, Speaker: 3, Start: 14, End: 15, Ending: Yielded},
		{Kind: Turn, Speaker: 2, Start: 17.9, End: 20, Ending: Yielded},
	}
	got := Transfers(EventFloorSegments(events))
	want := []Transfer{
		{From: 1, To: 2, End: 4.4, Start: 3.9, Interruption: true},
		{From: 2, To: 1, End: 12.0, Start: 12.25},
		{From: 1, To: 2, End: 18.0, Start: 17.9},
	}
	if len(got) != len(want) {
		t.Fatalf("transfers %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("transfer %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	tm := NewTiming(got)
	if tm.Transfers != 3 || tm.Interruptions != 1 || tm.Smooth.N != 2 || tm.All.N != 3 {
		t.Fatalf("timing %+v", tm)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// Smooth offsets +0.25 and -0.1: median 0.075; all add -0.5: median -0.1.
	if !near(tm.Smooth.Median, 0.075) || !near(tm.All.Median, -0.1) || !near(tm.All.Overlap, 2.0/3) {
		t.Errorf("smooth median %v, all median %v, overlap %v", tm.Smooth.Median, tm.All.Median, tm.All.Overlap)
	}
}

func TestTurnBenchFloorSegmentsUseTheMajority(t *testing.T) {
	t.Parallel()
	seg := func(s, e float64, l string) AnnotatedSegment { return AnnotatedSegment{Start: s, End: e, Label: l} }
	agreed := func(s ...AnnotatedSegment) SpeakerAnnotations { return SpeakerAnnotations{s, s, s} }
	speakers := []SpeakerAnnotations{
		agreed(seg(0, 3, "Normal Turn"), seg(6, 9, "Normal Turn")),
		// Only one annotator marks speaker 2's second turn: no consensus.
		{{seg(3.2, 5.8, "Regular Turn"), seg(8.5, 11, "Floor-taking Competitive Interruption")},
			{seg(3.25, 5.8, "Regular Turn"), seg(8.55, 11, "Floor-taking Competitive Interruption")},
			{seg(3.2, 5.85, "Regular Turn")}},
	}
	got := Transfers(TurnBenchFloorSegments(speakers))
	if len(got) != 3 || got[0].Offset() < 0.2 || got[2].From != 1 || !got[2].Interruption {
		t.Fatalf("transfers %+v", got)
	}
}

func TestTimingWithoutTransfersIsNull(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(NewTiming(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"transfers":0,"interruptions":0,"smooth":{"n":0,"median_s":null,"p25_s":null,"p75_s":null,"overlap_share":null},"all":{"n":0,"median_s":null,"p25_s":null,"p75_s":null,"overlap_share":null}}`
	if string(b) != want {
		t.Errorf("json %s\nwant %s", b, want)
	}
}

// The holder's reaction is measured from the claim's onset to the end of
// the holder's speech, whether or not the claim outlasts it: 2's claim at
// 3.9 s leaves 1 talking to 4.4 s; 3's one-word claim at 20.5 s ends inside
// 2's turn, which runs on to 21.7 s; 1's claim in 3's silence (after 3's
// turn ended) is no reaction at all.
func TestHolderReactionsRunFromTheClaimToTheHoldersEnd(t *testing.T) {
	t.Parallel()
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0.9, End: 4.4, Ending: Interrupted},
		{Kind: Interruption, Speaker: 2, Start: 3.9, End: 6.0},
		{Kind: Turn, Speaker: 2, Start: 6.2, End: 21.7, Ending: Interrupted},
		{Kind: Turn, Speaker: 1, Start: 6.0, End: 7.0, Ending: Yielded},
		{Kind: Interruption, Speaker: 3, Start: 20.5, End: 20.9},
		{Kind: Turn, Speaker: 3, Start: 21.3, End: 25, Ending: Yielded},
		{Kind: Interruption, Speaker: 1, Start: 25.5, End: 26},
	}
	got := HolderReactions(EventFloorSegments(events))
	want := []float64{0.5, 1.2}
	if len(got) != len(want) {
		t.Fatalf("reactions %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Errorf("reaction %d = %v, want %v", i, got[i], want[i])
		}
	}
	c := CheckTiming([]float64{0.1}, []float64{0.5}, got)
	if c.Reaction == nil || c.Reaction.N != 2 || math.Abs(c.Reaction.Median-0.85) > 1e-9 || !(c.Reaction.KS > 0 && c.Reaction.KS < 1) {
		t.Errorf("reaction check %+v", c.Reaction)
	}
	if c := CheckTiming([]float64{0.1}, []float64{0.5}, nil); c.Reaction != nil {
		t.Errorf("no reactions, check %+v", c.Reaction)
	}
}
