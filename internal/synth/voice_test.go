package synth

import (
	"testing"

	"github.com/floorbench/floorbench/internal/dialogue"
)

func TestDevAndTestVoicesAreDisjointAndCoverTheInventory(t *testing.T) {
	dev, test := VoicePool(dialogue.Dev), VoicePool(dialogue.Test)
	seen := map[string]dialogue.Split{}
	for _, v := range dev {
		seen[v.ID] = dialogue.Dev
	}
	for _, v := range test {
		if seen[v.ID] == dialogue.Dev {
			t.Fatalf("voice %s in both splits", v.ID)
		}
		seen[v.ID] = dialogue.Test
	}
	if len(seen) != len(Inventory()) || len(dev) < 5 {
		t.Fatalf("%d voices in pools of an inventory of %d; %d dev voices", len(seen), len(Inventory()), len(dev))
	}
}

func TestCastGivesEverySpeakerItsOwnVoice(t *testing.T) {
	for n := 2; n <= 5; n++ {
		for _, split := range []dialogue.Split{dialogue.Dev, dialogue.Test} {
			spec := ConversationSpec{ID: "c", Split: split, Type: dialogue.Casual, Speakers: n, Seconds: 30}
			c := CastVoices(spec, StreamFor(1, "c", StageVoices))
			ids, variants := map[string]bool{}, map[string]bool{}
			for _, v := range c.Voices {
				ids[v.ID], variants[variantOf(v)] = true, true
			}
			if len(c.Voices) != n || len(ids) != n || len(variants) != n || len(c.Levels) != n {
				t.Fatalf("%d speakers (%s): %d voices, %d distinct, %d variants", n, split, len(c.Voices), len(ids), len(variants))
			}
		}
	}
}
