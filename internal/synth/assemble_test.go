package synth

import (
	"math"
	"testing"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/dialogue"
	"github.com/floorbench/floorbench/internal/floor"
)

// clip is n samples of a 200 Hz tone: stage 3's output for one utterance.
func clip(n int) []float32 { return tone(0, n, 0, 0.3) }

func TestAssembleLogsExactSampleTimes(t *testing.T) {
	spec := ConversationSpec{ID: "a", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 3, Seconds: 10}
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
	spec := ConversationSpec{ID: "b", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 2, Seconds: 10}
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

// The event shapes of MPTB's hard cases, laid out and turned into gold:
// a one-word claim followed by a pause and the claimer's turn (the INT
// anchor at the claim's onset, the pause a real silence), a failed claim
// starting in the holder's hold (excluded from INT, the hold contested),
// an aside longer than what is left of the host's speech (moved earlier so
// the holder talks through it) and the yielder's backchannel early in the
// next turn (an INT negative on the yielder).
func TestAssembleHardCasesAndTheirGold(t *testing.T) {
	spec := ConversationSpec{ID: "h", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 3, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: -1,
			Segments: []Utterance{{Speaker: 1, Text: "a b c"}, {Speaker: 1, Text: "d e f"}}, Holds: []float64{1.0}},
		{Kind: floor.InterruptionAttempt, Speaker: 2, Host: 0, InHold: 1, At: 0.5, Utterance: Utterance{Speaker: 2, Text: "but what"}},
		{Kind: floor.NonFloorTakingInterruption, Speaker: 3, Host: 0, At: 0.7, Utterance: Utterance{Speaker: 3, Text: "a long aside"}},
		{Kind: floor.Turn, Speaker: 2, Ending: floor.Interrupted, Follows: 0, Gap: 0.4, Segments: []Utterance{{Speaker: 2, Text: "x"}}},
		{Kind: floor.Backchannel, Speaker: 1, Host: 3, At: 0.1, Utterance: Utterance{Speaker: 1, Text: "mm"}},
		{Kind: floor.Interruption, Speaker: 3, Host: 3, At: 0.5, Keep: 0.1, Utterance: Utterance{Speaker: 3, Text: "wait"}},
		{Kind: floor.Turn, Speaker: 3, Ending: floor.Yielded, Follows: 5, Gap: 0.6, Segments: []Utterance{{Speaker: 3, Text: "my turn"}}},
	}}
	r := Rendering{Acts: []RenderedAct{
		{Clips: [][]float32{clip(32000), clip(32000)}}, // 2 s, 1 s hold, 2 s
		{Clips: [][]float32{clip(24000)}},              // 1.5 s failed claim from the hold on
		{Clips: [][]float32{clip(40000)}},              // 2.5 s aside
		{Clips: [][]float32{clip(64000)}},              // 4 s turn, cut by the claim
		{Clips: [][]float32{clip(4800)}},
		{Clips: [][]float32{clip(4000)}}, // 0.25 s "wait"
		{Clips: [][]float32{clip(16000)}},
	}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	by := map[floor.EventKind]floor.Event{}
	for _, e := range tl.Events {
		if _, seen := by[e.Kind]; !seen || e.Kind != floor.Turn {
			by[e.Kind] = e
		}
	}
	// Hold: 2.5 to 3.5; the failed claim starts half way into it.
	if at := by[floor.InterruptionAttempt]; !near(at.Start, 3.0) || !near(at.End, 4.5) {
		t.Fatalf("failed claim %+v", at)
	}
	// The aside (2.5 s) planned at 70% of turn 1 (0.5 to 5.5) would end at
	// 6.5; it moves to end 0.25 s before turn 1 does.
	if nf := by[floor.NonFloorTakingInterruption]; !near(nf.End, 5.25) || !near(nf.Start, 2.75) {
		t.Fatalf("aside %+v", nf)
	}
	var turn2, turn3 floor.Event
	for _, e := range tl.Events {
		if e.Kind == floor.Turn && e.Speaker == 2 {
			turn2 = e
		}
		if e.Kind == floor.Turn && e.Speaker == 3 {
			turn3 = e
		}
	}
	claim := by[floor.Interruption]
	// Turn 2 starts at 5.9; the claim half way through its 4 s; the holder
	// stops 0.1 s into it, as drawn (to the 2 ms frame its speech is cut
	// on); the claimer's turn starts 0.6 s after the claim ends.
	if !near(claim.Start, 5.9+2) || !near(claim.End, claim.Start+0.25) || math.Abs(turn2.End-(claim.Start+0.1)) > 0.002 {
		t.Fatalf("claim %+v, interrupted turn %+v", claim, turn2)
	}
	if !near(turn3.Start, claim.End+0.6) || turn3.FloorBefore != 3 {
		t.Fatalf("claimer's turn %+v", turn3)
	}
	if bc := by[floor.Backchannel]; bc.Speaker != 1 || !near(bc.Start, 5.9+0.4) {
		t.Fatalf("yielder's backchannel %+v", bc)
	}

	g := floor.DeriveMPTB("h", tl.Duration(), tl.Events, floor.DefaultInterruptedGuard)
	if len(g.INT.Positives) != 1 || g.INT.Positives[0] != (floor.Anchor{Speaker: 3, Time: claim.Start}) {
		t.Errorf("INT positives %v, want the claim's onset", g.INT.Positives)
	}
	if len(g.INT.Excluded) != 1 || g.INT.Excluded[0] != (floor.Span{Speaker: 2, Start: 3.0, End: 4.5}) {
		t.Errorf("INT excluded %v, want the failed claim", g.INT.Excluded)
	}
	wantNeg := []floor.Span{{Speaker: 1, Start: by[floor.Backchannel].Start, End: by[floor.Backchannel].End}, {Speaker: 3, Start: 2.75, End: 5.25}}
	if len(g.INT.Negatives) != 2 || !near(g.INT.Negatives[0].Start, wantNeg[0].Start) || g.INT.Negatives[0].Speaker != 1 ||
		g.INT.Negatives[1].Speaker != 3 || !near(g.INT.Negatives[1].End, 5.25) {
		t.Errorf("INT negatives %v, want %v", g.INT.Negatives, wantNeg)
	}
	if len(g.EOT.Negatives) != 1 || g.EOT.Negatives[0] != (floor.Span{Speaker: 1, Start: 2.5, End: 3.5}) {
		t.Fatalf("EOT negatives %v, want the hold", g.EOT.Negatives)
	}
	if a := floor.MPTBAnatomy(&g, tl.Events); !a.HoldContested[0] {
		t.Errorf("the hold a failed claim starts in is not contested")
	}
	if len(g.EOT.Positives) != 2 || len(g.EOT.Excluded) != 1 || g.EOT.Excluded[0].Start != claim.Start {
		t.Errorf("EOT positives %v, excluded %v", g.EOT.Positives, g.EOT.Excluded)
	}
}

// A holder who restarts at an aside cuts off After into it, is silent for
// exactly Silence, says the last bit again and goes on with the same turn:
// the turn ends later by the silence and the speech said again, the next
// turn follows that end, the log carries the restart and the gold keeps
// it out of EOT (neither a turn end nor a hold).
func TestAssembleRestartsTheHolderAfterADropOut(t *testing.T) {
	spec := ConversationSpec{ID: "r", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 3, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: -1, Segments: []Utterance{{Speaker: 1, Text: "a long turn"}}},
		{Kind: floor.NonFloorTakingInterruption, Speaker: 2, Host: 0, At: 0.3, Utterance: Utterance{Speaker: 2, Text: "an aside"},
			Restart: Restart{After: 0.2, Silence: 0.4, Recycle: 0.2}},
		{Kind: floor.Turn, Speaker: 3, Ending: floor.Yielded, Follows: 0, Gap: 0.2, Segments: []Utterance{{Speaker: 3, Text: "next"}}},
	}}
	r := Rendering{Acts: []RenderedAct{{Clips: [][]float32{clip(64000)}}, {Clips: [][]float32{clip(16000)}}, {Clips: [][]float32{clip(16000)}}}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	turn, aside, next := tl.Events[0], tl.Events[1], tl.Events[2]
	if aside.Kind != floor.NonFloorTakingInterruption || !near(aside.Start, 0.5+1.2) {
		t.Fatalf("aside %+v", aside)
	}
	if len(turn.Restarts) != 1 {
		t.Fatalf("turn %+v has no restart", turn)
	}
	rs := turn.Restarts[0]
	if math.Abs(rs.Start-(aside.Start+0.2)) > 0.002 || !near(rs.End, rs.Start+0.4) {
		t.Fatalf("restart %+v, want a 0.4 s silence 0.2 s into the aside at %v", rs, aside.Start)
	}
	if again := turn.End - (4.5 + 0.4); again < 0.1 || again > 0.3 {
		t.Fatalf("turn ends at %v: %.3f s said again, want about 0.2", turn.End, again)
	}
	if next.Speaker != 3 || !near(next.Start, turn.End+0.2) {
		t.Fatalf("next turn %+v, want 0.2 s after %v", next, turn.End)
	}
	ch := tl.Channels[0]
	if audio.Peak(ch[int(rs.Start*audio.Rate):int(rs.End*audio.Rate)]) != 0 || audio.Peak(ch[int(rs.End*audio.Rate):int(rs.End*audio.Rate)+160]) == 0 {
		t.Fatal("the holder is not silent in the restart, or does not resume at its end")
	}
	g := floor.DeriveMPTB("r", tl.Duration(), tl.Events, floor.DefaultInterruptedGuard)
	if len(g.EOT.Excluded) != 1 || g.EOT.Excluded[0] != (floor.Span{Speaker: 1, Start: rs.Start, End: rs.End}) || len(g.EOT.Negatives) != 0 {
		t.Errorf("EOT excluded %v, negatives %v: want the restart excluded", g.EOT.Excluded, g.EOT.Negatives)
	}
	if len(g.EOT.Positives) != 2 || g.EOT.Positives[0].Time != turn.End {
		t.Errorf("EOT positives %v, want the turn's end", g.EOT.Positives)
	}
}

// A backchannel placed in a pause starts PauseAt of the way into the pause
// of the holder's speech nearest to where it was planned over speech; on a
// turn with no pause of 0.2 s it stays over speech.
func TestAssemblePutsBackchannelsInPauses(t *testing.T) {
	spec := ConversationSpec{ID: "p", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 2, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: -1, Segments: []Utterance{{Speaker: 1, Text: "one. two. three"}}},
		{Kind: floor.Backchannel, Speaker: 2, Host: 0, At: 0.75, InPause: true, PauseAt: 0.2, Utterance: Utterance{Speaker: 2, Text: "mm"}},
		{Kind: floor.Turn, Speaker: 2, Ending: floor.Yielded, Follows: 0, Gap: 0.5, Segments: []Utterance{{Speaker: 2, Text: "no pause here"}}},
		{Kind: floor.Backchannel, Speaker: 1, Host: 2, At: 0.5, InPause: true, PauseAt: 0.2, Utterance: Utterance{Speaker: 1, Text: "mm"}},
	}}
	// 1 s of speech, a 0.5 s pause, 1 s, a 0.3 s pause, 1.5 s; the pause
	// of 0.15 s in the second turn is too short to count.
	speech := func(parts ...int) []float32 {
		var x []float32
		for k, n := range parts {
			if k%2 == 0 {
				x = append(x, clip(n)...)
			} else {
				x = append(x, make([]float32, n)...)
			}
		}
		return x
	}
	r := Rendering{Acts: []RenderedAct{
		{Clips: [][]float32{speech(16000, 8000, 16000, 4800, 24000)}},
		{Clips: [][]float32{clip(4800)}},
		{Clips: [][]float32{speech(24000, 2400, 24000)}},
		{Clips: [][]float32{clip(4800)}},
	}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	var inPause, overSpeech floor.Event
	for _, e := range tl.Events {
		if e.Kind == floor.Backchannel && e.Speaker == 2 {
			inPause = e
		}
		if e.Kind == floor.Backchannel && e.Speaker == 1 {
			overSpeech = e
		}
	}
	// Planned at 75% of 0.5 to 4.8 s (3.725 s), nearest the second pause
	// (3.0 to 3.3 s): 0.06 s into it.
	if !near(inPause.Start, 3.0+0.2*0.3) {
		t.Fatalf("backchannel in a pause at %v, want %v", inPause.Start, 3.0+0.2*0.3)
	}
	turn2 := tl.Events[len(tl.Events)-2]
	if turn2.Kind != floor.Turn || !near(overSpeech.Start, turn2.Start+0.5*(turn2.End-turn2.Start)) {
		t.Fatalf("backchannel with no pause to go to at %v on turn %+v", overSpeech.Start, turn2)
	}
}

// A claim whose holder would not have the speech left to talk on for Keep
// starts earlier; one that can never fit starts 0.3 s into the turn and the
// holder says the whole turn.
func TestAssembleMovesClaimsForTheHoldersReaction(t *testing.T) {
	spec := ConversationSpec{ID: "k", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 2, Seconds: 10}
	for _, c := range []struct {
		keep, onset, end float64
	}{
		{0.4, 0.5 + 1.4, 0.5 + 1.4 + 0.4}, // fits where planned, 70% of 2 s in
		{1.0, 2.5 - 1.05, 2.5 - 0.05},     // moved earlier
		{3.0, 0.5 + 0.3, 2.5},             // cannot fit: the holder finishes
	} {
		p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
			{Kind: floor.Turn, Speaker: 1, Ending: floor.Interrupted, Follows: -1, Segments: []Utterance{{Speaker: 1, Text: "a turn"}}},
			{Kind: floor.Interruption, Speaker: 2, Host: 0, At: 0.7, Keep: c.keep, Utterance: Utterance{Speaker: 2, Text: "wait"}},
			{Kind: floor.Turn, Speaker: 2, Ending: floor.Yielded, Follows: 1, Gap: 0.5, Segments: []Utterance{{Speaker: 2, Text: "mine"}}},
		}}
		r := Rendering{Acts: []RenderedAct{{Clips: [][]float32{clip(32000)}}, {Clips: [][]float32{clip(8000)}}, {Clips: [][]float32{clip(16000)}}}}
		tl, err := Assemble(p, r)
		if err != nil {
			t.Fatal(err)
		}
		turn, claim := tl.Events[0], tl.Events[1]
		if !near(claim.Start, c.onset) || math.Abs(turn.End-c.end) > 0.002 {
			t.Errorf("keep %v: claim at %v, holder ends at %v; want %v and %v", c.keep, claim.Start, turn.End, c.onset, c.end)
		}
		if got := floor.HolderReactions(floor.EventFloorSegments(tl.Events)); len(got) != 1 || math.Abs(got[0]-(c.end-c.onset)) > 0.002 {
			t.Errorf("keep %v: holder reaction %v", c.keep, got)
		}
	}
}

// A holder who talks on over a claim for longer than the claimer's turn
// lasts is still talking when their next turn would start: it waits until
// 0.15 s after they stop.
func TestAssembleWaitsForAHolderWhoTalksOn(t *testing.T) {
	spec := ConversationSpec{ID: "c", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 2, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Interrupted, Follows: -1, Segments: []Utterance{{Speaker: 1, Text: "a long turn"}}},
		{Kind: floor.Interruption, Speaker: 2, Host: 0, At: 0.3, Keep: 2.5, Utterance: Utterance{Speaker: 2, Text: "no"}},
		{Kind: floor.Turn, Speaker: 2, Ending: floor.Yielded, Follows: 1, Gap: 0.1, Segments: []Utterance{{Speaker: 2, Text: "short"}}},
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: 2, Gap: -0.2, Segments: []Utterance{{Speaker: 1, Text: "again"}}},
	}}
	r := Rendering{Acts: []RenderedAct{
		{Clips: [][]float32{clip(80000)}}, // 5 s
		{Clips: [][]float32{clip(4800)}},  // 0.3 s claim at 2 s; the holder talks on to 4.5 s
		{Clips: [][]float32{clip(8000)}},  // 0.5 s turn from 2.4 s
		{Clips: [][]float32{clip(16000)}}, // would start at 2.7 s, while speaker 1 talks on
	}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	first, again := tl.Events[0], tl.Events[len(tl.Events)-1]
	if first.Speaker != 1 || again.Speaker != 1 || math.Abs(first.End-4.5) > 0.002 || !near(again.Start, first.End+0.15) {
		t.Fatalf("speaker 1 ends at %v and starts again at %v, want 4.5 and 0.15 s later", first.End, again.Start)
	}
	if err := ownSpeechApart(tl.Events); err != nil {
		t.Fatal(err)
	}
}

// A claimer still finishing their own turn (the host took the floor from
// them in overlap) claims no earlier than 0.15 s after it ends.
func TestAssembleClaimsAfterTheClaimersOwnTurn(t *testing.T) {
	spec := ConversationSpec{ID: "d", Split: dialogue.Test, Type: dialogue.Casual, Speakers: 2, Seconds: 10}
	p := FloorPlan{Spec: spec, Lead: 0.5, Tail: 1, Acts: []Act{
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: -1, Segments: []Utterance{{Speaker: 1, Text: "mine"}}},
		{Kind: floor.Turn, Speaker: 2, Ending: floor.Interrupted, Follows: 0, Gap: -1.2, Segments: []Utterance{{Speaker: 2, Text: "yours"}}},
		{Kind: floor.Interruption, Speaker: 1, Host: 1, At: 0.1, Keep: 0.5, Utterance: Utterance{Speaker: 1, Text: "wait"}},
		{Kind: floor.Turn, Speaker: 1, Ending: floor.Yielded, Follows: 2, Gap: 0.3, Segments: []Utterance{{Speaker: 1, Text: "more"}}},
	}}
	r := Rendering{Acts: []RenderedAct{
		{Clips: [][]float32{clip(32000)}}, // 0.5 to 2.5 s
		{Clips: [][]float32{clip(48000)}}, // from 1.3 s, 3 s long
		{Clips: [][]float32{clip(4800)}},  // planned at 1.6 s, while speaker 1 still talks
		{Clips: [][]float32{clip(8000)}},
	}}
	tl, err := Assemble(p, r)
	if err != nil {
		t.Fatal(err)
	}
	var claim floor.Event
	for _, e := range tl.Events {
		if e.Kind == floor.Interruption {
			claim = e
		}
	}
	if !near(claim.Start, 2.5+0.15) {
		t.Fatalf("claim at %v, want 0.15 s after the claimer's turn ends at 2.5", claim.Start)
	}
	if err := ownSpeechApart(tl.Events); err != nil {
		t.Fatal(err)
	}
}
