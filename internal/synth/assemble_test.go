package synth

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/floor"
)

// clip is n samples of a 200 Hz tone: stage 3's output for one utterance.
func clip(n int) []float32 { return tone(0, n, 0, 0.3) }

func TestAssembleLogsExactSampleTimes(t *testing.T) {
	spec := ConversationSpec{ID: "a", Split: Test, Type: Casual, Speakers: 3, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: -1,
			Segments: []Utterance{{Speaker: 1, Text: "one two"}, {Speaker: 1, Text: "three", Question: false}}, Holds: []float64{0.75}},
		{Kind: floor.Backchannel, Speaker: 3, Host: 0, InHold: 1, At: 0.2, Utterance: Utterance{Speaker: 3, Text: "mm"}},
		{Kind: floor.Turn, Speaker: 2, Ending: floor.Interrupted, Follows: 0, Gap: 0.3,
			Segments: []Utterance{{Speaker: 2, Text: "a long turn that gets cut"}}},
		{Kind: floor.Backchannel, Speaker: 3, Host: 2, At: 0.1, Utterance: Utterance{Speaker: 3, Text: "yeah"}},
		{Kind: floor.Interruption, Speaker: 3, Host: 2, At: 0.5, Keep: 0.5, Utterance: Utterance{Speaker: 3, Text: "wait"}},
		{Kind: floor.Turn, Speaker: 3, Ending: floor.Yielded, Follows: 4, Gap: 0.1, Segments: []Utterance{{Speaker: 3, Text: "my turn"}}},
	}}
	r := Rendering{Acts: []RenderedAct{
		{Clips: [][]float32{clip(16000), clip(8000)}},
		{Clips: [][]float32{clip(3200)}},
		{Clips: [][]float32{clip(64000)}},
		{Clips: [][]float32{clip(4800)}},
		{Clips: [][]float32{clip(8000)}},
		{Clips: [][]float32{clip(16000)}},
	}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	sec := func(n int) float64 { return float64(n) / audio.Rate }
	// Turn 1: 0.5 s lead, 1 s speech, 0.75 s hold, 0.5 s speech.
	turn1 := tl.Events[0]
	if turn1.Kind != floor.Turn || turn1.Start != 0.5 || turn1.End != 2.75 ||
		turn1.Holds[0] != (floor.Hold{Start: 1.5, End: 2.25}) {
		t.Fatalf("first turn %+v", turn1)
	}
	// The backchannel sits 20% into the hold: a contested hold.
	if bc := tl.Events[1]; bc.Speaker != 3 || !near(bc.Start, 1.5+0.2*0.75) || !near(bc.End, bc.Start+sec(3200)) {
		t.Fatalf("hold backchannel %+v", bc)
	}
	// Turn 2 starts 0.3 s after turn 1; the claim comes half way through its
	// 4 s; speaker 2 talks on for 0.5 s over it and is cut there.
	var turn2, claim, bc2 floor.Event
	for _, e := range tl.Events {
		switch {
		case e.Kind == floor.Turn && e.Speaker == 2:
			turn2 = e
		case e.Kind == floor.Interruption:
			claim = e
		case e.Kind == floor.Backchannel && e.Speaker == 3 && e.Start > 3:
			bc2 = e
		}
	}
	if turn2.Start != 3.05 || !near(claim.Start, 3.05+2) || !near(turn2.End, claim.Start+0.5) || turn2.Ending != floor.Interrupted || turn2.FloorAfter != 3 {
		t.Fatalf("turn 2 %+v, claim %+v", turn2, claim)
	}
	if !near(bc2.Start, 3.05+0.4) {
		t.Fatalf("backchannel on turn 2 at %v", bc2.Start)
	}
	last := tl.Events[len(tl.Events)-1]
	if last.Speaker != 3 || !near(last.Start, claim.End+0.1) || last.FloorBefore != 3 {
		t.Fatalf("claimer's turn %+v", last)
	}
	if d := tl.Duration(); !near(d, last.End+1) {
		t.Fatalf("duration %v, want last end + 1 s tail", d)
	}
	// Channel 2 is silent after the cut, channel 1 is silent in the hold.
	if audio.Peak(tl.Channels[1][int(turn2.End*audio.Rate):]) != 0 || audio.Peak(tl.Channels[0][int(1.5*audio.Rate)+1:int(2.25*audio.Rate)]) != 0 {
		t.Fatal("speech outside the logged extents")
	}
}

func TestAssembleDropsOverlaysIntoTheirOwnSpeech(t *testing.T) {
	spec := ConversationSpec{ID: "b", Split: Test, Type: Casual, Speakers: 2, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 0.5, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: -1, Segments: []Utterance{{Speaker: 1, Text: "x"}}},
		{Kind: floor.Backchannel, Speaker: 2, Host: 0, At: 0.9, Utterance: Utterance{Speaker: 2, Text: "yeah"}},
		{Kind: floor.Turn, Speaker: 2, Ending: floor.Yielded, Follows: 0, Gap: -0.3, Segments: []Utterance{{Speaker: 2, Text: "y"}}},
	}}
	r := Rendering{Acts: []RenderedAct{{Clips: [][]float32{clip(32000)}}, {Clips: [][]float32{clip(8000)}}, {Clips: [][]float32{clip(16000)}}}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tl.Events {
		if e.Kind == floor.Backchannel {
			t.Fatalf("backchannel running into the speaker's own turn was kept: %+v", e)
		}
	}
	if len(tl.Events) != 2 {
		t.Fatalf("%d events, want the two turns", len(tl.Events))
	}
}

// near compares times to within half a sample: event times are sample
// indexes over the rate, the expectations are decimal sums.
func near(a, b float64) bool { return math.Abs(a-b) < 0.5/audio.Rate }
