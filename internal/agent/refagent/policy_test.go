package refagent

import (
	"slices"
	"testing"
)

// The silence policies enter after the other side's speech and the entry
// silence (counted while the agent is silent too), once per speech heard;
// always-yield yields to speech over it, never-yield does not.
func TestSilencePolicies(t *testing.T) {
	own := make([]float32, 1)
	// Silence, speech, silence twice (enter), talking, talking over
	// speech, then silence: the speech heard over it brings the agent in
	// again after the entry silence, or after a yield the re-entry
	// silence.
	frames := []Frame{{}, {Speech: true}, {}, {}, {Own: own}, {Own: own, Speech: true}, {}, {}, {}, {}}
	for _, c := range []struct {
		yield   bool
		reentry int
		want    []Act
	}{
		{true, 2, []Act{Hold, Hold, Hold, Speak, Hold, Yield, Hold, Speak, Hold, Hold}},
		{true, 3, []Act{Hold, Hold, Hold, Speak, Hold, Yield, Hold, Hold, Speak, Hold}},
		{false, 3, []Act{Hold, Hold, Hold, Speak, Hold, Hold, Hold, Speak, Hold, Hold}},
	} {
		p := &silencePolicy{yield: c.yield, entry: 2, reentry: c.reentry}
		var got []Act
		for _, f := range frames {
			a, err := p.Step(f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, a)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("yield %v, re-entry %d: acts %v, want %v", c.yield, c.reentry, got, c.want)
		}
	}
}
