package corpus

import (
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// The reactions to overlap are read off the holder's channel at each
// vocalisation's onset: speaker 1 speaks 0-1 s and 1.5-4 s (a pause
// between); speaker 2's backchannel at 1.1 s starts in that pause, their
// laugh at 2 s and aside at 3 s over speech; speaker 1 restarts once;
// speaker 3's two claims are followed by their turns after 0.5 s and
// after 0.1 s.
func TestReactionCountsReadTheHoldersChannel(t *testing.T) {
	t.Parallel()
	n := 10 * audio.Rate
	ch := noisyChannels{xs: [][]float32{make([]float32, n), make([]float32, n), make([]float32, n)},
		noise: []channelNoise{{median10: 0.001}, {median10: 0.001}, {median10: 0.001}}}
	for _, span := range [][2]float64{{0, 1}, {1.5, 4}} {
		for i := int(span[0] * audio.Rate); i < int(span[1]*audio.Rate); i++ {
			ch.xs[0][i] = 0.3
		}
	}
	events := []floor.Event{
		{Kind: floor.Turn, Speaker: 1, Start: 0, End: 4, Ending: floor.Yielded, Restarts: []floor.Restart{{Start: 3.2, End: 3.5}}},
		{Kind: floor.Backchannel, Speaker: 2, Start: 1.1, End: 1.4, FloorBefore: 1},
		{Kind: floor.NonContent, Speaker: 2, Start: 2, End: 2.3, FloorBefore: 1},
		{Kind: floor.NonFloorTakingInterruption, Speaker: 2, Start: 3, End: 3.9, FloorBefore: 1},
		{Kind: floor.Interruption, Speaker: 3, Start: 3.8, End: 4.2, FloorBefore: 1},
		{Kind: floor.Turn, Speaker: 3, Start: 4.7, End: 6, FloorBefore: 3},
		{Kind: floor.Interruption, Speaker: 3, Start: 6.5, End: 7, FloorBefore: 1},
		{Kind: floor.Turn, Speaker: 3, Start: 7.1, End: 8, FloorBefore: 3},
	}
	var r reactionCounts
	r.add(events, ch)
	want := reactionCounts{listener: 2, listenerInPauses: 1, overSpeech: 2, restarts: 1, claims: 2, claimPauses: 1}
	if r != want {
		t.Errorf("counts %+v, want %+v", r, want)
	}
}
