package synth

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/dialogue"
)

func TestStreamsDependOnlyOnSeedIDAndStage(t *testing.T) {
	a := StreamFor(7, "c1", StageScript).Uint64()
	if b := StreamFor(7, "c1", StageScript).Uint64(); a != b {
		t.Fatal("same seed, id and stage gave different streams")
	}
	for _, other := range []uint64{StreamFor(8, "c1", StageScript).Uint64(), StreamFor(7, "c2", StageScript).Uint64(),
		StreamFor(7, "c1", StageFloor).Uint64()} {
		if other == a {
			t.Fatal("a different seed, id or stage gave the same stream")
		}
	}
}

func TestPresetsHaveTheirDesign(t *testing.T) {
	p, err := PresetByName("mptb", 1)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[[2]any]int{}
	dev, secs := 0, 0.0
	for _, c := range p.Conversations {
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		cells[[2]any{c.Speakers, c.Type}]++
		if c.Split == dialogue.Dev {
			dev++
		}
		secs += c.Seconds
	}
	if len(p.Conversations) != 240 || len(cells) != 24 || dev != 48 {
		t.Fatalf("%d conversations in %d cells, %d dev; want 240, 24, 48", len(p.Conversations), len(cells), dev)
	}
	for cell, n := range cells {
		if n != 10 {
			t.Fatalf("cell %v has %d conversations", cell, n)
		}
	}
	tiny, _ := PresetByName("tiny", 1)
	types, counts := map[dialogue.InteractionType]bool{}, map[int]bool{}
	for _, c := range tiny.Conversations {
		types[c.Type], counts[c.Speakers] = true, true
	}
	if len(tiny.Conversations) != 12 || len(types) != 6 || len(counts) != 4 {
		t.Fatalf("tiny: %d conversations, %d types, %d speaker counts", len(tiny.Conversations), len(types), len(counts))
	}
	if _, err := PresetByName("huge", 1); err == nil {
		t.Fatal("unknown preset accepted")
	}
}

func TestSpecRejectsSharesOutsideZeroToOne(t *testing.T) {
	ok := ConversationSpec{ID: "s", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 2, Seconds: 10, Overlap: presetOverlap}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []OverlapShares{{Restarts: 1.5}, {BackchannelsInPauses: -0.1}, {ClaimPauses: math.NaN()}} {
		s := ok
		s.Overlap = bad
		if err := s.Validate(); err == nil {
			t.Errorf("shares %+v accepted", bad)
		}
	}
}
