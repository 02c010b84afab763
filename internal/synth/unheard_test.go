package synth

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
)

// The unheard preset is mptb's cells in voices the train preset never
// casts, noised as the evaluation presets are.
func TestUnheardPresetCastsNoVoiceTheTrainPresetHas(t *testing.T) {
	p, err := PresetByName("unheard", 1)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[[2]any]int{}
	dev := 0
	for _, c := range p.Conversations {
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		if !c.Unheard || c.Train || !strings.HasPrefix(c.ID, "unheard-") {
			t.Fatalf("%s: unheard %v, train %v", c.ID, c.Unheard, c.Train)
		}
		cells[[2]any{c.Speakers, c.Type}]++
		if c.Split == dialogue.Dev {
			dev++
		}
	}
	if len(p.Conversations) != 72 || len(cells) != 24 || dev != 24 {
		t.Fatalf("%d conversations in %d cells, %d dev; want 72, 24, 24", len(p.Conversations), len(cells), dev)
	}

	train := map[string]bool{}
	for _, v := range TrainVoices() {
		train[v.ID] = true
	}
	unheard := UnheardVoices()
	if len(unheard) != 7 {
		t.Fatalf("%d unheard voices, want flite's 4 and festival's 3", len(unheard))
	}
	for _, v := range unheard {
		if v.Engine == EngineEspeak || train[v.ID] {
			t.Fatalf("unheard voice %s: engine %s, a train voice %v", v.ID, v.Engine, train[v.ID])
		}
	}

	both := ConversationSpec{ID: "both", Split: dialogue.Dev, Type: dialogue.Casual, Speakers: 2, Seconds: 8, Train: true, Unheard: true}
	if err := both.Validate(); err == nil || !strings.Contains(err.Error(), "both train and unheard") {
		t.Fatalf("a spec both train and unheard: %v", err)
	}

	spec := ConversationSpec{ID: "unheard-check", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 5, Seconds: 8,
		Overlap: presetOverlap, Unheard: true}
	c, err := Generate(context.Background(), 1, spec, enginesForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Cast.Voices {
		if !slices.Contains(unheard, v) {
			t.Fatalf("cast %s: not an unheard voice", v.ID)
		}
	}
	for k, a := range c.Acoustics {
		if !slices.Contains([]audio.NoiseKind{audio.White, audio.Pink, audio.Babble}, a.Noise) || a.SNR < MinSNR || a.SNR > MaxSNR {
			t.Fatalf("speaker %d: %s noise at %.1f dB, want the evaluation presets' white, pink or babble", k+1, a.Noise, a.SNR)
		}
	}
}
