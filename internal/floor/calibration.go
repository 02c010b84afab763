package floor

import "github.com/floorbench/floorbench/internal/swbd"

// MinPause is the shortest within-speaker silence counted as a pause when
// timing is compared with Switchboard, whose pauses are at least this long
// (its words were merged across shorter gaps).
const MinPause = 0.2

// TimingCheck compares a corpus's timing with real conversation
// (Switchboard, package swbd) by two-sample Kolmogorov–Smirnov distances:
// handover offsets against Switchboard's floor-transfer offsets, hold
// pauses of MinPause or more against its pauses, and, where the corpus has
// interruptions, the holder's reactions to them against Switchboard's
// overlaps at floor transfers.
type TimingCheck struct {
	Handovers      int     `json:"handovers"`
	HandoverMedian float64 `json:"handover_median_s"`
	HandoverKS     float64 `json:"handover_ks"`
	Pauses         int     `json:"pauses"`
	PauseMedian    float64 `json:"pause_median_s"`
	PauseKS        float64 `json:"pause_ks"`
	// Reaction is nil when no interruption starts in overlap.
	Reaction *ReactionCheck `json:"holder_reaction,omitempty"`
}

// ReactionCheck compares how long floor holders talk on after an
// interruption's onset (HolderReactions) with how long Switchboard's
// speakers talk on into the overlap at a floor transfer (swbd.Overlaps).
type ReactionCheck struct {
	N      int     `json:"n"`
	Median float64 `json:"median_s"`
	KS     float64 `json:"ks"`
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

// HolderReactions are, for every interruption that starts while another
// speaker holds the floor, how long that holder talks on after its onset:
// the end of the latest-starting floor segment of another speaker that
// contains the onset, minus the onset. At a floor transfer in overlap this
// is the magnitude of the (negative) offset, as Switchboard's overlaps are
// measured, whether or not the claim outlasts the holder.
func HolderReactions(segments []FloorSegment) []float64 {
	var out []float64
	for _, in := range segments {
		if !in.Interruption {
			continue
		}
		holder, found := FloorSegment{}, false
		for _, s := range segments {
			if s.Speaker != in.Speaker && s.Start <= in.Start && in.Start < s.End && (!found || s.Start > holder.Start) {
				holder, found = s, true
			}
		}
		if found {
			out = append(out, holder.End-in.Start)
		}
	}
	return out
}

// CheckTiming compares handover offsets, pauses and holder reactions with
// Switchboard's. It returns nil when there are no offsets or no pauses to
// compare; its Reaction is nil when there are no reactions.
func CheckTiming(offsets, pauses, reactions []float64) *TimingCheck {
	if len(offsets) == 0 || len(pauses) == 0 {
		return nil
	}
	c := &TimingCheck{
		Handovers: len(offsets), HandoverMedian: median(offsets), HandoverKS: swbd.KS(offsets, swbd.Offsets().Values),
		Pauses: len(pauses), PauseMedian: median(pauses), PauseKS: swbd.KS(pauses, swbd.Pauses().Values),
	}
	if len(reactions) > 0 {
		c.Reaction = &ReactionCheck{N: len(reactions), Median: median(reactions), KS: swbd.KS(reactions, swbd.Overlaps().Values)}
	}
	return c
}
