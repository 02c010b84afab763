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
	// StartInteger and EndInteger: the input wrote the time as an integer,
	// which TurnBench's Python reads as an int (see Anchor.TimeInteger).
	StartInteger, EndInteger bool
}

// Annotators is the number of annotators per speaker in TurnBench.
const Annotators = 3

// SpeakerAnnotations are the tracks of annotators a, b and c for one speaker.
type SpeakerAnnotations [Annotators][]AnnotatedSegment

// consensusEvent is one majority-agreed segment.
type consensusEvent struct {
	speaker                  int
	start, end               float64
	label                    string
	startInteger, endInteger bool
}

// number is a time as TurnBench's Python holds it: an int where the input
// wrote an integer, otherwise a float. Its consensus keeps ints as ints
// where Python does (median, round, min and max), so that the gold prints
// them as Python prints them.
type number struct {
	v       float64
	integer bool
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
			g.INT.Positives = append(g.INT.Positives, Anchor{e.speaker, e.start, e.startInteger})
		case ClassBackchannel, ClassNonContent:
			g.INT.Negatives = append(g.INT.Negatives, e.span())
		}
	}
	// Non-floor-taking attempts are neither positives nor negatives: at onset
	// they cannot be told from interruptions.
	g.INT.Excluded = slices.Clone(label.excluded)
	for _, e := range label.events {
		if e.label == ClassNonFloorTaking {
			g.INT.Excluded = append(g.INT.Excluded, e.span())
		}
	}
	return g
}

func (e consensusEvent) span() Span {
	return Span{e.speaker, e.start, e.end, e.startInteger, e.endInteger}
}

func consensusForView(speakers []SpeakerAnnotations, classOf func(string) string) consensusView {
	var v consensusView
	for k, tracks := range speakers {
		var mapped [Annotators][]consensusEvent
		for a, track := range tracks {
			mapped[a] = make([]consensusEvent, 0, len(track))
			for _, s := range track {
				if c := classOf(s.Label); c != "" {
					mapped[a] = append(mapped[a], consensusEvent{k + 1, s.Start, s.End, c, s.StartInteger, s.EndInteger})
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
	var byStart [Annotators]startIndex
	for a := range used {
		used[a] = make([]bool, len(events[a]))
		byStart[a] = newStartIndex(events[a])
	}
	consensus := make([]consensusEvent, 0, len(events[0]))
	for anchor := range Annotators {
		for ai, e := range events[anchor] {
			if used[anchor][ai] {
				continue
			}
			var groupBuf, agreeBuf [Annotators]groupMember
			group := append(groupBuf[:0], groupMember{anchor, ai, e.start, e.end})
			for other := anchor + 1; other < Annotators; other++ {
				if j, ok := byStart[other].nearestUnused(events[other], used[other], e.start, e.label); ok {
					group = append(group, groupMember{other, j, events[other][j].start, events[other][j].end})
				}
			}
			agreeing := largestAgreeing(group, agreeBuf[:0])
			if len(agreeing) < tbMinAgreement {
				continue
			}
			var startBuf, endBuf [Annotators]number
			starts, ends := startBuf[:len(agreeing)], endBuf[:len(agreeing)]
			for i, m := range agreeing {
				member := events[m.annotator][m.index]
				starts[i], ends[i] = number{member.start, member.startInteger}, number{member.end, member.endInteger}
			}
			start, end := pyRound4(pyMedian(starts)), pyRound4(pyMedian(ends))
			consensus = append(consensus, consensusEvent{speaker, start.v, end.v, e.label, start.integer, end.integer})
			for _, m := range agreeing {
				used[m.annotator][m.index] = true
			}
		}
	}
	var unmatched [][2]number
	for a := range Annotators {
		for i, e := range events[a] {
			if used[a][i] || overlapsAny(e, consensus) {
				continue
			}
			unmatched = append(unmatched, [2]number{{e.start, e.startInteger}, {e.end, e.endInteger}})
		}
	}
	var excluded []Span
	for _, iv := range mergeSorted(unmatched) {
		start, end := pyRound4(iv[0]), pyRound4(iv[1])
		excluded = append(excluded, Span{speaker, start.v, end.v, start.integer, end.integer})
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

// startIndex lists one annotator's events by start (stably: equal starts
// keep their order), so that the events within the match window of a
// start are found by binary search.
type startIndex []int32

func newStartIndex(events []consensusEvent) startIndex {
	idx := make(startIndex, len(events))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(events[a].start, events[b].start) })
	return idx
}

// nearestUnused returns the unused event of the given class whose start is
// nearest to start, within the match window; the earliest in the
// annotator's order on a tie. Only events whose start lies within twice the
// window are looked at (binary search); the window itself is tested as the
// distance, exactly as a scan of every event tests it.
func (idx startIndex) nearestUnused(events []consensusEvent, used []bool, start float64, class string) (int, bool) {
	best, bestDistance := -1, math.Inf(1)
	from, _ := slices.BinarySearchFunc(idx, start-2*tbMatchWindow, func(i int32, t float64) int { return cmp.Compare(events[i].start, t) })
	for _, i := range idx[from:] {
		e := &events[i]
		if e.start > start+2*tbMatchWindow {
			break
		}
		if used[i] || e.label != class {
			continue
		}
		if d := math.Abs(e.start - start); d <= tbMatchWindow && (d < bestDistance || (d == bestDistance && int(i) < best)) {
			best, bestDistance = int(i), d
		}
	}
	return best, best >= 0
}

// largestAgreeing appends to out the largest subset of group containing
// its first member (the anchor) whose starts and ends each spread at most
// the tolerance; among subsets of one size, the first in combination
// order.
func largestAgreeing(group, out []groupMember) []groupMember {
	n := len(group)
	for size := n; size >= 1; size-- {
		found := false
		combinations(n, size, func(idx []int) bool {
			if idx[0] != 0 {
				return true // every subset must contain the anchor
			}
			var subBuf [Annotators]groupMember
			sub := subBuf[:size]
			for i, j := range idx {
				sub[i] = group[j]
			}
			if agrees(sub) {
				out, found = append(out, sub...), true
				return false
			}
			return true
		})
		if found {
			return out
		}
	}
	return out
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
	var buf [Annotators]int
	idx := buf[:k]
	if k > len(buf) {
		idx = make([]int, k)
	}
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

// pyMedian is median with Python's types: the middle value after a stable
// sort (an int stays an int; of equal values, the first given), or the
// mean of the two middle values, which true division makes a float.
func pyMedian(v []number) number {
	var buf [Annotators]number
	s := append(buf[:0], v...)
	slices.SortStableFunc(s, func(a, b number) int { return cmp.Compare(a.v, b.v) })
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return number{(s[n/2-1].v + s[n/2].v) / 2, false}
}

// pyRound4 is Python's round(x, 4): an int is returned as it is, a float
// is rounded by round4.
func pyRound4(x number) number {
	if x.integer {
		return x
	}
	return number{round4(x.v), false}
}

// round4 is Python's round(x, 4): the exact binary value rounded half to
// even at 4 decimals, read back (round4Text). It is done in arithmetic:
// p + e, with p = x·10⁴ rounded and e the product's exact rounding error
// (math.FMA, |e| ≤ half an ulp of p), is x·10⁴ exactly; for 1 ≤ |p| < 2⁵²
// the distance of p from the half between its neighbouring integers is
// exact (Sterbenz) and a whole number of ulps, so it decides the rounding
// unless it is 0, where e does (and where e is 0 too, the even integer).
// The integer n over 10⁴, both exact, is the correctly rounded quotient:
// the value the decimal n·10⁻⁴ reads back as. Other x (below 10⁻⁴ s, past
// 14 centuries, not finite) are rounded by the text.
func round4(x float64) float64 {
	p := x * 1e4
	if !(math.Abs(p) >= 1 && math.Abs(p) < 1<<52) {
		return round4Text(x)
	}
	e := math.FMA(x, 1e4, -p)
	f := math.Floor(p)
	half := (p - f) - 0.5
	up := half > 0 || (half == 0 && (e > 0 || (e == 0 && math.Mod(f, 2) != 0)))
	if up {
		f++
	}
	return f / 1e4
}

// round4Text is round4 by its definition: strconv's fixed formatting rounds
// the exact decimal expansion half to even, as Python's round does.
func round4Text(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return v
}

// mergeSorted merges overlapping [start, end] intervals after sorting them
// stably by (start, end), as Python's sorted does; touching intervals
// merge. A merged interval keeps its first start and, as Python's max
// does, the first of equal ends.
func mergeSorted(in [][2]number) [][2]number {
	s := slices.Clone(in)
	slices.SortStableFunc(s, func(a, b [2]number) int { return cmp.Or(cmp.Compare(a[0].v, b[0].v), cmp.Compare(a[1].v, b[1].v)) })
	var out [][2]number
	for _, iv := range s {
		if n := len(out); n > 0 && iv[0].v <= out[n-1][1].v {
			if iv[1].v > out[n-1][1].v {
				out[n-1][1] = iv[1]
			}
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
	for k := range segments {
		slices.SortStableFunc(segments[k], func(a, b consensusEvent) int { return cmp.Compare(a.start, b.start) })
	}
	var positives []Anchor
	var negatives []Span
	for k := range segments {
		for i, seg := range segments[k] {
			if insideOther(segments[k], i, seg.end) {
				continue
			}
			nextSelf, resumes := firstStartAfter(segments[k], seg.end)
			nextOther, otherSpeaking := math.Inf(1), false
			for o := range segments {
				if o == k {
					continue
				}
				if next, ok := firstStartAfter(segments[o], seg.end); ok {
					nextOther = min(nextOther, next.start)
				}
				otherSpeaking = otherSpeaking || insideOther(segments[o], -1, seg.end)
			}
			if !resumes || nextOther < nextSelf.start || otherSpeaking {
				a := Anchor{k + 1, seg.end, seg.endInteger}
				if !slices.ContainsFunc(positives, a.sameAs) {
					positives = append(positives, a)
				}
				continue
			}
			pause := Span{k + 1, seg.end, nextSelf.start, seg.endInteger, nextSelf.startInteger}
			if p, ok := truncatePause(pause, turn, label); ok && !slices.ContainsFunc(negatives, p.sameAs) {
				negatives = append(negatives, p)
			}
		}
	}
	return positives, negatives
}

// sameAs compares anchors by value, as Python's == does (60 == 60.0).
func (a Anchor) sameAs(b Anchor) bool { return a.Speaker == b.Speaker && a.Time == b.Time }

// sameAs compares spans by value, as Python's == does.
func (s Span) sameAs(o Span) bool {
	return s.Speaker == o.Speaker && s.Start == o.Start && s.End == o.End
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

// firstStartAfter returns the first of segments (sorted by start) that
// starts strictly after t, and false if none does.
func firstStartAfter(segments []consensusEvent, t float64) (consensusEvent, bool) {
	i := sort.Search(len(segments), func(i int) bool { return segments[i].start > t })
	if i < len(segments) {
		return segments[i], true
	}
	return consensusEvent{}, false
}

// truncatePause cuts a pause at the first evidence that it is not a quiet
// hold: an excluded interval of either view and any speaker overlapping it,
// the speaker's own non-Turn vocalisation, or another speaker's
// interruption (floor-taking or not) starting inside it. Other speakers'
// backchannels do not cut it. A pause cut at or before its start is dropped.
// The cut is the first of the earliest cut times, as Python's min returns.
func truncatePause(p Span, turn, label consensusView) (Span, bool) {
	end := number{p.End, p.EndInteger}
	cut := func(t float64, integer bool) {
		if t < end.v {
			end = number{t, integer}
		}
	}
	for _, ex := range [][]Span{turn.excluded, label.excluded} {
		for _, iv := range ex {
			if iv.Start < p.End && iv.End > p.Start {
				cut(iv.Start, iv.StartInteger)
			}
		}
	}
	for _, e := range label.events {
		own := e.speaker == p.Speaker && e.label != ClassTurn
		bargeIn := e.speaker != p.Speaker && (e.label == ClassInterruption || e.label == ClassNonFloorTaking)
		if (own || bargeIn) && p.Start < e.start && e.start < p.End {
			cut(e.start, e.startInteger)
		}
	}
	if end.v <= p.Start {
		return Span{}, false
	}
	return Span{p.Speaker, p.Start, end.v, p.StartInteger, end.integer}, true
}
