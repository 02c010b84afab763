package floor

import (
	"reflect"
	"testing"
)

func TestDeriveMPTB(t *testing.T) {
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0, End: 4, Ending: Yielded, Holds: []Hold{{Start: 1.5, End: 2.1}}},
		{Kind: Backchannel, Speaker: 2, Start: 1.6, End: 1.9},
		{Kind: Turn, Speaker: 2, Start: 4.3, End: 9, Ending: Interrupted},
		{Kind: Interruption, Speaker: 3, Start: 8.2, End: 12},
		{Kind: InterruptionAttempt, Speaker: 1, Start: 6, End: 6.5},
		{Kind: NonFloorTakingInterruption, Speaker: 1, Start: 10, End: 10.8},
		{Kind: NonContent, Speaker: 2, Start: 11, End: 11.2},
		{Kind: Turn, Speaker: 3, Start: 8.2, End: 12, Ending: Yielded},
	}
	g := DeriveMPTB("c", 13, events, DefaultInterruptedGuard)
	want := ConversationGold{ID: "c", Duration: 13,
		EOT: TaskGold{
			Positives: []Anchor{{1, 4}, {3, 12}},
			Negatives: []Span{{1, 1.5, 2.1}},
			Excluded:  []Span{{2, 8.2, 10}},
		},
		INT: TaskGold{
			Positives: []Anchor{{3, 8.2}},
			Negatives: []Span{{1, 10, 10.8}, {2, 1.6, 1.9}, {2, 11, 11.2}},
			Excluded:  []Span{{1, 6, 6.5}},
		},
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("got  %+v\nwant %+v", g, want)
	}
}
