package floor

import (
	"reflect"
	"testing"
)

func TestDeriveMPTB(t *testing.T) {
	t.Parallel()
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0, End: 4, Ending: Yielded, Holds: []Hold{{Start: 1.5, End: 2.1}}},
		{Kind: Backchannel, Speaker: 2, Start: 1.6, End: 1.9},
		{Kind: Turn, Speaker: 2, Start: 4.3, End: 9, Ending: Interrupted},
		{Kind: Interruption, Speaker: 3, Start: 8.2, End: 12},
		{Kind: InterruptionAttempt, Speaker: 1, Start: 6, End: 6.5},
		{Kind: NonFloorTakingInterruption, Speaker: 1, Start: 10, End: 10.8},
		{Kind: NonContent, Speaker: 2, Start: 11, End: 11.2},
		// Speaker 3 cuts off in speaker 1's aside and restarts: excluded
		// from EOT, neither a turn end nor a hold.
		{Kind: Turn, Speaker: 3, Start: 8.2, End: 12, Ending: Yielded, Restarts: []Restart{{Start: 10.3, End: 10.7}}},
	}
	g := DeriveMPTB("c", 13, events, DefaultInterruptedGuard)
	want := ConversationGold{ID: "c", Duration: 13,
		EOT: TaskGold{
			Positives: []Anchor{{Speaker: 1, Time: 4}, {Speaker: 3, Time: 12}},
			Negatives: []Span{{Speaker: 1, Start: 1.5, End: 2.1}},
			Excluded:  []Span{{Speaker: 2, Start: 8.2, End: 10}, {Speaker: 3, Start: 10.3, End: 10.7}},
		},
		INT: TaskGold{
			Positives: []Anchor{{Speaker: 3, Time: 8.2}},
			Negatives: []Span{{Speaker: 1, Start: 10, End: 10.8}, {Speaker: 2, Start: 1.6, End: 1.9}, {Speaker: 2, Start: 11, End: 11.2}},
			Excluded:  []Span{{Speaker: 1, Start: 6, End: 6.5}},
		},
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("got  %+v\nwant %+v", g, want)
	}
}

func TestMPTBAnatomy(t *testing.T) {
	t.Parallel()
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0, End: 9, Ending: Yielded, Holds: []Hold{{Start: 2, End: 3, AfterQuestion: true}, {Start: 5, End: 6}}},
		{Kind: Backchannel, Speaker: 2, Start: 5.2, End: 5.5, Words: 1},
		{Kind: Interruption, Speaker: 3, Start: 8.5, End: 12, Words: 11},
		{Kind: Turn, Speaker: 3, Start: 8.5, End: 12, Ending: Yielded},
	}
	g := DeriveMPTB("c", 13, events, DefaultInterruptedGuard)
	a := MPTBAnatomy(&g, events)
	if !reflect.DeepEqual(a.HoldQuestion, []bool{true, false}) || !reflect.DeepEqual(a.HoldContested, []bool{false, true}) {
		t.Errorf("holds: question %v contested %v", a.HoldQuestion, a.HoldContested)
	}
	if !reflect.DeepEqual(a.ClaimWords, []int{11}) || !reflect.DeepEqual(a.NegativeWords, []int{1}) {
		t.Errorf("words: claims %v negatives %v", a.ClaimWords, a.NegativeWords)
	}
	if ClaimLengthBand(3) != "1-3" || ClaimLengthBand(4) != "4-8" || ClaimLengthBand(9) != "9+" {
		t.Error("claim length bands are 1-3, 4-8, 9+")
	}
}
