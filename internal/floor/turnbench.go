package floor

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
)

// TurnBench's consensus constants (docs/protocol.md#turnbench).
const (
	tbMinAgreement  = 2   // of 3 annotators
	tbTimeTolerance = 0.2 // max spread of starts and of ends in an agreeing group
	tbMatchWindow   = 0.5 // max start distance to match another annotator's event
)

// Canonical classes of TurnBench's 17 fine labels.
const (
	ClassTurn           = "Turn"
	ClassLaughter       = "Laughter"
	ClassAwkwardSilence = "AwkwardSilence"
	ClassInterruption   = "Interruption"
	ClassNonFloorTaking = "NonFloorTakingInterruption"
	ClassBackchannel    = "Backchannel"
	ClassNonContent     = "NonContent"
)

// fineLabels maps each fine annotator label to its canonical class; labels
// not listed are ignored when building consensus.
var fineLabels = map[string]string{
	"Normal Turn":                           ClassTurn,
	"Regular Turn":                          ClassTurn,
	"Strong Floor Hold":                     ClassTurn,
	"Bounded Response":                      ClassTurn,
	"Filler":                                ClassTurn,
	"Overlap":                               ClassTurn,
	"Laughter":                              ClassLaughter,
	"Awkward Silence":                       ClassAwkwardSilence,
	"Floor-taking Competitive Interruption": ClassInterruption,
	"Floor-taking Cooperative Interruption": ClassInterruption,
	"Non-floor Taking Competitive Interruption": ClassNonFloorTaking,
	"Non-floor Taking Cooperative Interruption": ClassNonFloorTaking,
	"Acknowledgement Backchannel":               ClassBackchannel,
	"Continuer Backchannel":                     ClassBackchannel,
	"Reaction Backchannel":                      ClassBackchannel,
	"Non-Speech Noise":                          ClassNonContent,
	"Channel Bleed":                             ClassNonContent,
	"Speech, Non-Linguistic":                    ClassNonContent,
}

// CanonicalLabel returns the canonical class of a fine label ("" if none).
func CanonicalLabel(fine string) string { return fineLabels[fine] }

// turnViewLabel is the coarser turn view: does a segment claim the floor?
// Turn labels and floor-taking interruptions are one class.
func turnViewLabel(fine string) string {
	switch fineLabels[fine] {
	case ClassTurn, ClassInterruption:
		return ClassTurn
	}
	return ""
}

// AnnotatedSegment is one segment of one annotator's track.
type AnnotatedSegment struct {
	Start, End float64
	Label      string // fine label, as annotated
	Text       string
}

// Annotators is the number of annotators per speaker in TurnBench.
const Annotators = 3

// SpeakerAnnotations are the tracks of annotators a, b and c for one speaker.
type SpeakerAnnotations [Annotators][]AnnotatedSegment

// consensusEvent is one majority-agreed segment.
type consensusEvent struct {
	speaker    int
	start, end float64
	label      string
}

type consensusView struct {
	events   []consensusEvent
	excluded []Span
}

// DeriveTurnBench builds a conversation's gold from its raw annotator tracks
// exactly as TurnBench's scorer does (docs/protocol.md#turnbench); speakers[k] belongs to
// speaker k+1. With more than two speakers, "the other speaker" of the
// dyadic rules is every other speaker.
func DeriveTurnBench(id string, duration float64, speakers []SpeakerAnnotations) ConversationGold {
	label := consensusForView(speakers, CanonicalLabel)
	turn := consensusForView(speakers, turnViewLabel)
	g := ConversationGold{ID: id, Duration: duration}
	g.EOT.Positives, g.EOT.Negatives = turnEnds(len(speakers), turn, label)
	g.EOT.Excluded = turn.excluded
	for _, e := range label.events {
		switch e.label {
		case ClassInterruption:
			g.INT.Positives = append(g.INT.Positives, Anchor{e.speaker, e.start})
		case ClassBackchannel, ClassNonContent:
			g.INT.Negatives = append(g.INT.Negatives, Span{e.speaker, e.start, e.end})
		}
	}
	// Non-floor-taking attempts are neither positives nor negatives: at onset
	// they cannot be told from interruptions.
	g.INT.Excluded = slices.Clone(label.excluded)
	for _, e := range label.events {
		if e.label == ClassNonFloorTaking {
			g.INT.Excluded = append(g.INT.Excluded, Span{e.speaker, e.start, e.end})
		}
	}
	return g
}

func consensusForView(speakers []SpeakerAnnotations, classOf func(string) string) consensusView {
	var v consensusView
	for k, tracks := range speakers {
		var mapped [Annotators][]consensusEvent
		for a, track := range tracks {
			for _, s := range track {
				if c := classOf(s.Label); c != "" {
					mapped[a] = append(mapped[a], consensusEvent{k + 1, s.Start, s.End, c})
				}
			}
		}
		events, excluded := findConsensus(mapped, k+1)
		v.events = append(v.events, events...)
		v.excluded = append(v.excluded, excluded...)
	}
	return v
}

// groupMember is one annotator's event in a candidate consensus group.
type groupMember struct {
	annotator, index int
	start, end       float64
}

// findConsensus groups one speaker's events across annotators. Each
// annotator's events in turn (a, then b, then c) anchor a group with the
// nearest unused same-class event of every later annotator within the match
// window; the largest subset with the anchor whose starts and ends each
// spread at most the tolerance is accepted when it has a majority, with the
// median boundaries rounded to 4 decimals. Unused events that overlap no
// consensus event become excluded intervals (no majority there).
func findConsensus(events [Annotators][]consensusEvent, speaker int) ([]consensusEvent, []Span) {
	var used [Annotators][]bool
	for a := range used {
		used[a] = make([]bool, len(events[a]))
	}
	var consensus []consensusEvent
	for anchor := range Annotators {
		for ai, e := range events[anchor] {
			if used[anchor][ai] {
				continue
			}
			group := []groupMember{{anchor, ai, e.start, e.end}}
			for other := anchor + 1; other < Annotators; other++ {
				if j, ok := nearestUnused(events[other], used[other], e.start, e.label); ok {
					group = append(group, groupMember{other, j, events[other][j].start, events[other][j].end})
				}
			}
			agreeing := largestAgreeing(group)
			if len(agreeing) < tbMinAgreement {
				continue
			}
			starts := make([]float64, len(agreeing))
			ends := make([]float64, len(agreeing))
			for i, m := range agreeing {
				starts[i], ends[i] = m.start, m.end
			}
			consensus = append(consensus, consensusEvent{speaker, round4(median(starts)), round4(median(ends)), e.label})
			for _, m := range agreeing {
				used[m.annotator][m.index] = true
			}
		}
	}
	var unmatched [][2]float64
	for a := range Annotators {
		for i, e := range events[a] {
			if used[a][i] || overlapsAny(e, consensus) {
				continue
			}
			unmatched = append(unmatched, [2]float64{e.start, e.end})
		}
	}
	var excluded []Span
	for _, iv := range mergeSorted(unmatched) {
		excluded = append(excluded, Span{speaker, round4(iv[0]), round4(iv[1])})
	}
	return consensus, excluded
}

func overlapsAny(e consensusEvent, consensus []consensusEvent) bool {
	for _, c := range consensus {
		if c.start < e.end && e.start < c.end {
			return true
		}
	}
	return false
}

// nearestUnused returns the unused event of the given class whose start is
// nearest to start, within the match window; the earliest on a tie.
func nearestUnused(events []consensusEvent, used []bool, start float64, class string) (int, bool) {
	best, bestDistance := -1, math.Inf(1)
	for i, e := range events {
		if used[i] || e.label != class {
			continue
		}
		if d := math.Abs(e.start - start); d < bestDistance && d <= tbMatchWindow {
			best, bestDistance = i, d
		}
	}
	return best, best >= 0
}

// largestAgreeing returns the largest subset of group containing its first
// member (the anchor) whose starts and ends each spread at most the
// tolerance; among subsets of one size, the first in combination order.
func largestAgreeing(group []groupMember) []groupMember {
	n := len(group)
	for size := n; size >= 1; size-- {
		var found []groupMember
		combinations(n, size, func(idx []int) bool {
			if idx[0] != 0 {
				return true // every subset must contain the anchor
			}
			sub := make([]groupMember, size)
			for i, j := range idx {
				sub[i] = group[j]
			}
			if agrees(sub) {
				found = sub
				return false
			}
			return true
		})
		if found != nil {
			return found
		}
	}
	return nil
}

func agrees(sub []groupMember) bool {
	minS, maxS := math.Inf(1), math.Inf(-1)
	minE, maxE := math.Inf(1), math.Inf(-1)
	for _, m := range sub {
		minS, maxS = min(minS, m.start), max(maxS, m.start)
		minE, maxE = min(minE, m.end), max(maxE, m.end)
	}
	return maxS-minS <= tbTimeTolerance && maxE-minE <= tbTimeTolerance
}

// combinations calls fn with every size-k subset of 0..n-1 in lexicographic
// order (Python's itertools.combinations order) until fn returns false.
func combinations(n, k int, fn func([]int) bool) {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	for {
		if !fn(idx) {
			return
		}
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < k; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// median is Python's statistics.median: the middle value, or the mean of
// the two middle values.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// round4 is Python's round(x, 4): the exact binary value rounded half to
// even at 4 decimals, read back. strconv's fixed formatting rounds the exact
// decimal expansion the same way.
func round4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return v
}

// mergeSorted merges overlapping [start, end] intervals after sorting them
// by (start, end); touching intervals merge.
func mergeSorted(in [][2]float64) [][2]float64 {
	s := slices.Clone(in)
	slices.SortFunc(s, func(a, b [2]float64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	var out [][2]float64
	for _, iv := range s {
		if n := len(out); n > 0 && iv[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], iv[1])
			continue
		}
		out = append(out, iv)
	}
	return out
}

// turnEnds derives EOT positives and hold negatives from the turn view: a
// Turn segment's end is a positive when the floor passes (another speaker
// starts before this one resumes, is mid-turn as it ends, or nobody resumes),
// otherwise the gap to the speaker's next segment is a pause, truncated by
// truncatePause. Ends strictly inside another of the speaker's own segments
// are no boundary at all.
func turnEnds(nSpeakers int, turn, label consensusView) ([]Anchor, []Span) {
	segments := make([][]consensusEvent, nSpeakers)
	for _, e := range turn.events {
		if e.label == ClassTurn {
			segments[e.speaker-1] = append(segments[e.speaker-1], e)
		}
	}
	starts := make([][]float64, nSpeakers)
	for k := range segments {
		slices.SortStableFunc(segments[k], func(a, b consensusEvent) int { return cmp.Compare(a.start, b.start) })
		for _, s := range segments[k] {
			starts[k] = append(starts[k], s.start)
		}
	}
	var positives []Anchor
	var negatives []Span
	for k := range segments {
		for i, seg := range segments[k] {
			if insideOther(segments[k], i, seg.end) {
				continue
			}
			nextSelf := firstStartAfter(starts[k], seg.end)
			nextOther, otherSpeaking := math.Inf(1), false
			for o := range segments {
				if o == k {
					continue
				}
				nextOther = min(nextOther, firstStartAfter(starts[o], seg.end))
				otherSpeaking = otherSpeaking || insideOther(segments[o], -1, seg.end)
			}
			if math.IsInf(nextSelf, 1) || nextOther < nextSelf || otherSpeaking {
				a := Anchor{k + 1, seg.end}
				if !slices.Contains(positives, a) {
					positives = append(positives, a)
				}
				continue
			}
			if p, ok := truncatePause(Span{k + 1, seg.end, nextSelf}, turn, label); ok && !slices.Contains(negatives, p) {
				negatives = append(negatives, p)
			}
		}
	}
	return positives, negatives
}

// insideOther reports whether t lies strictly inside a segment other than
// segments[skip].
func insideOther(segments []consensusEvent, skip int, t float64) bool {
	for j, s := range segments {
		if j != skip && s.start < t && t < s.end {
			return true
		}
	}
	return false
}

func firstStartAfter(sorted []float64, t float64) float64 {
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i] > t })
	if i < len(sorted) {
		return sorted[i]
	}
	return math.Inf(1)
}

// truncatePause cuts a pause at the first evidence that it is not a quiet
// hold: an excluded interval of either view and any speaker overlapping it,
// the speaker's own non-Turn vocalisation, or another speaker's
// interruption (floor-taking or not) starting inside it. Other speakers'
// backchannels do not cut it. A pause cut at or before its start is dropped.
func truncatePause(p Span, turn, label consensusView) (Span, bool) {
	end := p.End
	for _, ex := range [][]Span{turn.excluded, label.excluded} {
		for _, iv := range ex {
			if iv.Start < p.End && iv.End > p.Start {
				end = min(end, iv.Start)
			}
		}
	}
	for _, e := range label.events {
		own := e.speaker == p.Speaker && e.label != ClassTurn
		bargeIn := e.speaker != p.Speaker && (e.label == ClassInterruption || e.label == ClassNonFloorTaking)
		if (own || bargeIn) && p.Start < e.start && e.start < p.End {
			end = min(end, e.start)
		}
	}
	if end <= p.Start {
		return Span{}, false
	}
	return Span{p.Speaker, p.Start, end}, true
}
