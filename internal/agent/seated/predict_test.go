package seated

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/agent/proto"
)

// A seat's onset is an EOT prediction for every other speaker and, while
// the others speak, an INT prediction for its own speaker; the seats'
// onsets are pooled per speaker and task and thinned by the refractory.
func TestConversationPredictionsMapOnsets(t *testing.T) {
	seats := []SeatOnsets{
		{Speaker: 2, Onsets: []float64{1.0, 2.5, 5.0, 5.5}, Barge: []bool{false, true, false, true}},
		{Speaker: 3, Onsets: []float64{1.1, 8.0}, Barge: []bool{true, false}},
	}
	c := ConversationPredictions("c", 3, seats, 2.0)
	want := [][2][]float64{ // per speaker: EOT, INT
		{{1.0, 5.0, 8.0}, {}},    // both seats' onsets pooled; 1.1, 2.5 and 5.5 within 2 s of a kept one
		{{1.1, 8.0}, {2.5, 5.5}}, // seat 3's onsets; seat 2's barges
		{{1.0, 5.0}, {1.1}},      // seat 2's onsets; seat 3's barge
	}
	for k, w := range want {
		got := c.Speakers[k]
		if !slices.Equal(got.EOT, w[0]) || !slices.Equal(got.INT, w[1]) {
			t.Errorf("speaker %d: EOT %v INT %v, want EOT %v INT %v", k+1, got.EOT, got.INT, w[0], w[1])
		}
	}
}

// With no refractory the pooled lists are still strictly increasing: the
// same onset from two seats is one prediction.
func TestThinKeepsListsStrictlyIncreasing(t *testing.T) {
	got := thin([]float64{3, 1, 3, 2, 1}, 0)
	if !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("thin = %v", got)
	}
	// An onset exactly the refractory after the last kept one is kept,
	// however the subtraction rounds.
	if got := thin([]float64{2.37, 4.37}, 2); len(got) != 2 {
		t.Errorf("thin(2.37, 4.37; 2 s) = %v, want both", got)
	}
}

// tone writes a loud 440 Hz tone into x over [from, to) seconds.
func tone(x []float32, from, to float64) {
	for i := int(from * proto.SampleRate); i < int(to*proto.SampleRate) && i < len(x); i++ {
		x[i] = float32(0.3 * math.Sin(2*math.Pi*440*float64(i)/proto.SampleRate))
	}
}

// An onset heard in the tail after the conversation's end is a prediction
// at the end; two such are one.
func TestOnsetsEndAtTheConversationsEnd(t *testing.T) {
	x := make([]float32, 12*proto.SampleRate)
	tone(x, 1, 1.5)
	tone(x, 10.2, 10.5)
	tone(x, 11, 11.5)
	got := Onsets(x, 10, agent.DefaultVAD())
	if !slices.Equal(got, []float64{1, 10}) {
		t.Errorf("onsets %v, want [1 10]", got)
	}
}

// An onset is a barge-in while the mix holds speech, and not in silence
// (the rms baseline's activity, with its hangover, on the mix).
func TestBargesReadTheMix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	mix := make([]float32, 10*proto.SampleRate)
	for i := range mix {
		mix[i] = float32(1e-4 * rng.NormFloat64())
	}
	tone(mix, 2, 5)
	got, err := Barges(context.Background(), "c", mix, 10, []float64{1, 3, 4.9, 6.5})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("barges %v, want %v", got, want)
	}
}

func TestMixLeavesTheSeatOut(t *testing.T) {
	channels := [][]float32{{1, 1, 1}, {0.5, 0.5, 0.5}, {0.25, 0.25}}
	got := Mix(channels, 2, 1)
	if len(got) != proto.FrameSamples {
		t.Fatalf("%d samples, want one frame", len(got))
	}
	if want := []float32{1.25, 1.25, 1, 0}; !slices.Equal(got[:4], want) {
		t.Errorf("mix starts %v, want %v", got[:4], want)
	}
}

func TestParseSpeakers(t *testing.T) {
	for in, want := range map[string]Speakers{"all": nil, "1": {1}, "3,1": {1, 3}, " 2 , 4": {2, 4}} {
		got, err := ParseSpeakers(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseSpeakers(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "17", "1,1", "a", "1,,2"} {
		if _, err := ParseSpeakers(in); err == nil {
			t.Errorf("ParseSpeakers(%q): no error", in)
		}
	}
}
