package viewer

import (
	"testing"

	"github.com/floorbench/floorbench/internal/evaluate"
)

// The corpus's gold is drawn only when it is the gold the bundle scored:
// the same anchors and negative spans, whatever the excluded intervals.
func TestScoresOf(t *testing.T) {
	events := []evaluate.EventRow{
		{Conversation: "a", Speaker: 1, Kind: "positive", Start: 2, End: 2},
		{Conversation: "a", Speaker: 2, Kind: "negative", Start: 3, End: 3.5},
		{Conversation: "b", Speaker: 1, Kind: "positive", Start: 9, End: 9},
	}
	same := []evaluate.TimelineItem{{Speaker: 2, Kind: "negative", Start: 3, End: 3.5}, {Speaker: 1, Kind: "positive", Start: 2, End: 2},
		{Speaker: 1, Kind: "excluded", Start: 4, End: 5}}
	for _, c := range []struct {
		name string
		gold []evaluate.TimelineItem
		want bool
	}{
		{"same, with an excluded interval", same, true},
		{"a negative span less", same[1:], false},
		{"an anchor more", append(same[:3:3], evaluate.TimelineItem{Speaker: 2, Kind: "positive", Start: 7, End: 7}), false},
		{"an anchor moved", []evaluate.TimelineItem{same[0], {Speaker: 1, Kind: "positive", Start: 2.01, End: 2.01}}, false},
	} {
		if got := scoresOf(c.gold, events, "a"); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
