package floor

import "github.com/floorbench/floorbench/internal/swbd"

// MinPause is the shortest within-speaker silence counted as a pause when
// timing is compared with Switchboard, whose pauses are at least this long
// (its words were merged across shorter gaps).
const MinPause = 0.2

// TimingCheck compares a corpus's timing with real conversation
// (Switchboard, package swbd) by two-sample Kolmogorov–Smirnov distances:
// handover offsets against Switchboard's floor-transfer offsets, and hold
// pauses of MinPause or more against its pauses.
type TimingCheck struct {
	Handovers      int     `json:"handovers"`
	HandoverMedian float64 `json:"handover_median_s"`
	HandoverKS     float64 `json:"handover_ks"`
	Pauses         int     `json:"pauses"`
	PauseMedian    float64 `json:"pause_median_s"`
	PauseKS        float64 `json:"pause_ks"`
}

// HandoverOffsets are the offsets at every speaker change between floor
// segments, the way Switchboard's are measured: segments sorted by onset
// (ties by speaker), and at each consecutive pair of different speakers
// the later one's start minus the earlier one's end.
func HandoverOffsets(segments []FloorSegment) []float64 {
	s := byOnset(segments)
	var out []float64
	for i := 1; i < len(s); i++ {
		if s[i].Speaker != s[i-1].Speaker {
			out = append(out, s[i].Start-s[i-1].End)
		}
	}
	return out
}

// HoldPauses are the lengths of the EOT negative spans (hold pauses) of at
// least MinPause.
func HoldPauses(g ConversationGold) []float64 {
	var out []float64
	for _, s := range g.EOT.Negatives {
		if d := s.End - s.Start; d >= MinPause {
			out = append(out, d)
		}
	}
	return out
}

// CheckTiming compares handover offsets and pauses with Switchboard's. It
// returns nil when there is nothing to compare.
func CheckTiming(offsets, pauses []float64) *TimingCheck {
	if len(offsets) == 0 || len(pauses) == 0 {
		return nil
	}
	return &TimingCheck{
		Handovers: len(offsets), HandoverMedian: median(offsets), HandoverKS: swbd.KS(offsets, swbd.Offsets().Values),
		Pauses: len(pauses), PauseMedian: median(pauses), PauseKS: swbd.KS(pauses, swbd.Pauses().Values),
	}
}
