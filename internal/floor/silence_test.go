package floor

import (
	"math"
	"testing"
)

// A holder restarts under a backchannel and is cut off by a claim; a
// non-content sound far from anyone else's speech is not in overlap.
func TestOthersSilences(t *testing.T) {
	t.Parallel()
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0, End: 10, Ending: Interrupted, Restarts: []Restart{{Start: 5, End: 5.5}}},
		{Kind: Backchannel, Speaker: 2, Start: 4.9, End: 5.6},
		{Kind: Interruption, Speaker: 2, Start: 8, End: 9},
		{Kind: Turn, Speaker: 2, Start: 9.1, End: 12, Ending: Yielded},
		{Kind: NonContent, Speaker: 2, Start: 20, End: 20.3},
	}
	claims, negatives := OthersSilences(events, 3)
	// Speaker 1 speaks (with the 0.2 s hangover) over [0, 5.2] and
	// [5.5, 10.2]. The claim's run [8, 12.2] began in overlap; inside
	// [8, 11] the others are silent from 10.2: 0.8 s. Inside the
	// backchannel [4.9, 5.6] they are silent over [5.2, 5.5]: 0.3 s. The
	// non-content sound's run did not begin in overlap: 0.
	want := struct{ claims, negatives []float64 }{[]float64{0.8}, []float64{0.3, 0}}
	if !near(claims, want.claims) || !near(negatives, want.negatives) {
		t.Fatalf("claims %v, negatives %v; want %v, %v", claims, negatives, want.claims, want.negatives)
	}
	s := NewSilenceShares(claims, negatives)
	wantClaims := []float64{1, 1, 1, 1, 1}
	wantNegatives := []float64{0.5, 0.5, 0.5, 0, 0}
	if s.Claims != 1 || s.Negatives != 2 || !near(s.ClaimShare, wantClaims) || !near(s.NegativeShare, wantNegatives) {
		t.Errorf("shares %+v, want claims %v, negatives %v at %v", s, wantClaims, wantNegatives, SilenceThresholds)
	}
	if NewSilenceShares(nil, negatives) != nil {
		t.Error("shares without claims")
	}
}

// The claim's window ends tau_max after its onset: the holder falling
// silent later is not counted.
func TestOthersSilencesWithinTauMax(t *testing.T) {
	t.Parallel()
	events := []Event{
		{Kind: Turn, Speaker: 1, Start: 0, End: 12, Ending: Interrupted},
		{Kind: Interruption, Speaker: 2, Start: 8, End: 14},
	}
	if claims, _ := OthersSilences(events, 3); !near(claims, []float64{0}) {
		t.Errorf("claims %v, want [0]", claims)
	}
	if claims, _ := OthersSilences(events, 5); !near(claims, []float64{0.8}) {
		t.Errorf("tau_max 5: claims %v, want [0.8]", claims)
	}
}

func near(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			return false
		}
	}
	return true
}
