package floor

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
)

// FloorSegment is a stretch of speech that holds the floor: a turn, or a
// successful interruption (which takes the floor from the current holder).
type FloorSegment struct {
	Speaker      int
	Start, End   float64
	Interruption bool
}

// Transfer is one change of floor holder: From's segment ends at End and
// To's floor-taking speech starts at Start.
type Transfer struct {
	From, To     int
	End, Start   float64
	Interruption bool // the new holder took the floor by interrupting
}

// Offset is the floor-transfer offset: the next speaker's start minus the
// current turn's end (negative when the next speaker starts in overlap).
func (t Transfer) Offset() float64 { return t.Start - t.End }

// Transfers lists the floor changes of one conversation. Segments are taken
// in order of start (ties by speaker); the holder is the speaker of the last
// floor segment, and the holder's latest segment is "the current turn". A
// segment of another speaker that ends after the current turn ends takes
// the floor; one that ends inside it (speech wholly in the holder's turn) is
// not a transfer and leaves the holder as it is.
func Transfers(segments []FloorSegment) []Transfer {
	s := byOnset(segments)
	var out []Transfer
	cur := -1
	for i, seg := range s {
		switch {
		case cur < 0, seg.Speaker == s[cur].Speaker:
			cur = i
		case seg.End > s[cur].End:
			out = append(out, Transfer{From: s[cur].Speaker, To: seg.Speaker, End: s[cur].End, Start: seg.Start, Interruption: seg.Interruption})
			cur = i
		}
	}
	return out
}

// byOnset returns a copy of segments in order of start, ties by speaker.
func byOnset(segments []FloorSegment) []FloorSegment {
	s := slices.Clone(segments)
	slices.SortStableFunc(s, func(a, b FloorSegment) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Speaker, b.Speaker))
	})
	return s
}

// EventFloorSegments are the floor segments of an event log (MPTB, and AMI's
// derived events): TURN events, and INTERRUPTION events as interruptions.
func EventFloorSegments(events []Event) []FloorSegment {
	var out []FloorSegment
	for _, e := range events {
		switch e.Kind {
		case Turn:
			out = append(out, FloorSegment{e.Speaker, e.Start, e.End, false})
		case Interruption:
			out = append(out, FloorSegment{e.Speaker, e.Start, e.End, true})
		}
	}
	return out
}

// TurnBenchFloorSegments are the floor segments of raw TurnBench tracks:
// the majority-agreed segments of the label view (docs/protocol.md#turnbench) whose class
// is Turn or Interruption.
func TurnBenchFloorSegments(speakers []SpeakerAnnotations) []FloorSegment {
	var out []FloorSegment
	for _, e := range consensusForView(speakers, CanonicalLabel).events {
		switch e.label {
		case ClassTurn:
			out = append(out, FloorSegment{e.speaker, e.start, e.end, false})
		case ClassInterruption:
			out = append(out, FloorSegment{e.speaker, e.start, e.end, true})
		}
	}
	return out
}

// Timing is the human timing baseline of a set of conversations: the
// distribution of floor-transfer offsets (seconds), as TurnBench reports it
// (a median of smooth transfers, and one with interruptions included).
type Timing struct {
	Transfers     int `json:"transfers"`
	Interruptions int `json:"interruptions"`
	// Smooth are the transfers without interruption; All includes them.
	Smooth OffsetStats `json:"smooth"`
	All    OffsetStats `json:"all"`
	// Switchboard compares the timing with real conversation (set by
	// corpus-level summaries that have holds to compare).
	Switchboard *TimingCheck `json:"switchboard,omitempty"`
	// HolderSilence is what the event logs predict for the audit's
	// holder-silence rule (set by corpus-level summaries of event logs with
	// interruptions).
	HolderSilence *SilenceShares `json:"holder_silence,omitempty"`
}

// OffsetStats summarises floor-transfer offsets in seconds; NaN (null in
// JSON) when there are none.
type OffsetStats struct {
	N int `json:"n"`
	// Median, P25 and P75 of offsets; Overlap is the share of offsets below
	// zero (the next speaker started before the turn ended).
	Median  float64 `json:"median_s"`
	P25     float64 `json:"p25_s"`
	P75     float64 `json:"p75_s"`
	Overlap float64 `json:"overlap_share"`
}

// MarshalJSON writes the undefined statistics of no offsets as null.
func (o OffsetStats) MarshalJSON() ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		N       int      `json:"n"`
		Median  *float64 `json:"median_s"`
		P25     *float64 `json:"p25_s"`
		P75     *float64 `json:"p75_s"`
		Overlap *float64 `json:"overlap_share"`
	}{o.N, num(o.Median), num(o.P25), num(o.P75), num(o.Overlap)})
}

// NewTiming summarises transfers.
func NewTiming(transfers []Transfer) Timing {
	var smooth, all []float64
	t := Timing{Transfers: len(transfers)}
	for _, tr := range transfers {
		all = append(all, tr.Offset())
		if tr.Interruption {
			t.Interruptions++
		} else {
			smooth = append(smooth, tr.Offset())
		}
	}
	t.Smooth, t.All = offsetStats(smooth), offsetStats(all)
	return t
}

func offsetStats(v []float64) OffsetStats {
	if len(v) == 0 {
		nan := math.NaN()
		return OffsetStats{Median: nan, P25: nan, P75: nan, Overlap: nan}
	}
	slices.Sort(v)
	overlap := 0
	for _, x := range v {
		if x < 0 {
			overlap++
		}
	}
	return OffsetStats{N: len(v), Median: median(v), P25: lerpQuantile(v, 0.25), P75: lerpQuantile(v, 0.75),
		Overlap: float64(overlap) / float64(len(v))}
}

// lerpQuantile is the q-quantile of sorted values by linear interpolation
// between closest ranks.
func lerpQuantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
