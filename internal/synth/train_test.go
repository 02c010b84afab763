package synth

import (
	"context"
	"slices"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
)

// The train preset never touches what an evaluation preset is made of:
// its ids, voices and noises are its own.
func TestTrainPresetHasItsOwnIDsVoicesAndNoises(t *testing.T) {
	train, err := PresetByName("train", 4501)
	if err != nil {
		t.Fatal(err)
	}
	mptb, _ := PresetByName("mptb", 4501)
	tiny, _ := PresetByName("tiny", 1)
	evalIDs := map[string]bool{}
	for _, c := range slices.Concat(mptb.Conversations, tiny.Conversations) {
		evalIDs[c.ID] = true
	}
	held := 0
	for _, c := range train.Conversations {
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		if !c.Train || evalIDs[c.ID] {
			t.Fatalf("%s: train %v, also an evaluation id %v", c.ID, c.Train, evalIDs[c.ID])
		}
		if c.Split == dialogue.Test {
			held++
		}
	}
	if len(train.Conversations) != 96 || held != 24 {
		t.Fatalf("%d conversations, %d held out; want 96, 24", len(train.Conversations), held)
	}
	evalVoices := map[string]bool{}
	for _, v := range Inventory() {
		evalVoices[v.ID] = true
	}
	for _, v := range TrainVoices() {
		if evalVoices[v.ID] {
			t.Fatalf("train voice %s is an evaluation voice", v.ID)
		}
	}

	spec := ConversationSpec{ID: "train-check", Split: dialogue.Dev, Type: dialogue.Casual, Speakers: 3, Seconds: 8,
		Overlap: presetOverlap, Train: true}
	c, err := Generate(context.Background(), 4501, spec, enginesForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Cast.Voices {
		if evalVoices[v.ID] || !slices.Contains(TrainVoices(), v) {
			t.Fatalf("cast %s: not a train voice", v.ID)
		}
	}
	for k, a := range c.Acoustics {
		if !slices.Contains([]audio.NoiseKind{audio.Brown, audio.Hum, audio.Babble}, a.Noise) || a.SNR < MinTrainSNR || a.SNR > MaxSNR {
			t.Fatalf("speaker %d: %s noise at %.1f dB, want brown, hum or babble from %g dB", k+1, a.Noise, a.SNR, MinTrainSNR)
		}
	}
}
