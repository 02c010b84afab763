package floor

import "testing"

// words gives a run of timed words, one every 0.25 s from start.
func words(start float64, n int) []Vocalisation {
	out := make([]Vocalisation, n)
	for i := range out {
		t := start + 0.25*float64(i)
		out[i] = Vocalisation{Start: t, End: t + 0.2, Word: "word"}
	}
	return out
}

// B talks into A's turn and A stops 0.45 s later: a successful
// interruption, A's turn ends interrupted and B's turn starts where A
// stopped. A zero-length word forms no spurt and is counted as dropped.
func TestAMIRulesDeriveAnInterruption(t *testing.T) {
	t.Parallel()
	a := words(0, 8) // 0 .. 1.95
	b := append(words(1.5, 8), Vocalisation{Start: 5, End: 5, Word: "lost"})
	events, dropped := DefaultAMIRules.Derive([][]Vocalisation{a, b})
	if dropped != 1 {
		t.Errorf("dropped %d words, want 1", dropped)
	}
	if len(events) != 3 {
		t.Fatalf("%d events, want 3: %+v", len(events), events)
	}
	turnA, claim, turnB := events[0], events[1], events[2]
	if turnA.Kind != Turn || turnA.Speaker != 1 || turnA.Ending != Interrupted || turnA.FloorAfter != 2 {
		t.Errorf("A's turn %+v", turnA)
	}
	if claim.Kind != Interruption || claim.Speaker != 2 || claim.Start != 1.5 || claim.End != turnA.End || claim.FloorBefore != 1 || claim.FloorAfter != 2 {
		t.Errorf("B's claim %+v (A's turn ends at %v)", claim, turnA.End)
	}
	if turnB.Kind != Turn || turnB.Speaker != 2 || turnB.Start != turnA.End || turnB.FloorBefore != 2 {
		t.Errorf("B's turn %+v", turnB)
	}

	// With a window shorter than A's talk after the onset, A finished
	// their turn: yielded, and B's overlap an interruption attempt.
	rules := DefaultAMIRules
	rules.InterruptWindow = 0.2
	events, _ = rules.Derive([][]Vocalisation{a, b})
	if len(events) != 3 || events[0].Ending != Yielded || events[1].Kind != InterruptionAttempt {
		t.Errorf("window 0.2 s: %+v", events)
	}
}
